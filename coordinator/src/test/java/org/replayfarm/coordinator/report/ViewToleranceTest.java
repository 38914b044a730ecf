package org.replayfarm.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --view} with tolerances: {@code RANGE=TYPE[ROWSxCOLS],abs=X,rel=X,ulp=N}, tolerances alone, images by
 * {@code image:K}; every spelling that worked before still does; each malformed one is refused naming the view
 * and what is wrong.
 */
@Tag("unit")
class ViewToleranceTest {
    @TempDir
    Path dir;

    private static String error(String view) {
        return assertThrows(IllegalArgumentException.class, () -> RangeViews.parse(view)).getMessage();
    }

    @Test
    void a_view_gives_a_type_a_shape_and_tolerances_in_any_combination() {
        RangeViews.Spec s = RangeViews.parse("4=f32,abs=1e-6");
        assertEquals("4", s.key());
        assertEquals("f32", s.typeShape());
        assertEquals(new Tolerance.Override(null, 1e-6, null), s.tolerance());
        RangeViews.Spec shaped = RangeViews.parse("C=f32[37x50],rel=1e-5,ulp=4");
        assertEquals("f32[37x50]", shaped.typeShape());
        assertEquals(new Tolerance.Override(4, null, 1e-5), shaped.tolerance());
        RangeViews.Spec alone = RangeViews.parse("C=abs=1e-6");
        assertEquals("", alone.typeShape(), "the type stays the metadata's");
        assertEquals(new Tolerance.Override(null, 1e-6, null), alone.tolerance());
        assertEquals(new Tolerance.Override(0, 2.5e-7, 0.0), RangeViews.parse(" C = f32 , ABS = 2.5e-7 , rel=0 , ulp=0 ")
                .tolerance());
        RangeViews.Spec image = RangeViews.parse("image:1=abs=1e-3,ulp=2");
        assertTrue(image.image());
        assertEquals("1", image.key());
        assertEquals(new Tolerance.Override(2, 1e-3, null), image.tolerance());
        assertEquals("depth", RangeViews.parse("image:depth=rel=1e-4").key());
        // the spellings from before tolerances
        for (String old : List.of("C=f32[37x50]", "1=[16x32]", "C=f32", "C=float4", "C=unsigned int", "x=i32x2[8]",
                "arg1 x.bin=f32")) {
            RangeViews.Spec p = RangeViews.parse(old);
            assertTrue(p.tolerance().none(), old);
            assertFalse(p.image(), old);
        }
    }

    @Test
    void a_malformed_view_is_refused_naming_it_and_what_is_wrong() {
        String expected = "expected RANGE=TYPE[ROWSxCOLS], RANGE=TYPE[N], RANGE=TYPE or RANGE=[ROWSxCOLS] (RANGE: its "
                + "index, parameter or name; TYPE: f32, i32x2, ...), each optionally followed by ,abs=X ,rel=X ,ulp=N (or "
                + "those alone: RANGE=abs=X), or image:K=abs=X (an image's tolerances)";
        assertEquals("--view 'C': " + expected, error("C"));
        assertEquals("--view 'C=': " + expected, error("C="));
        assertEquals("--view '=f32': " + expected, error("=f32"));
        assertEquals("--view 'C=f32,i32': " + expected, error("C=f32,i32"));
        assertEquals("--view 'C=f32,,abs=1': " + expected, error("C=f32,,abs=1"));
        assertEquals("--view 'C=f32{3}': " + expected, error("C=f32{3}"));
        assertEquals("--view 'C=f32,abs=-1': abs '-1': expected a finite number 0 or more (1e-6, 0.001)",
                error("C=f32,abs=-1"));
        assertEquals("--view 'C=rel=x': rel 'x': expected a finite number 0 or more (1e-6, 0.001)", error("C=rel=x"));
        assertEquals("--view 'C=f32,rel=Infinity': rel 'Infinity': expected a finite number 0 or more (1e-6, 0.001)",
                error("C=f32,rel=Infinity"));
        assertEquals("--view 'C=f32,ulp=1.5': ulp '1.5': expected a whole number of ulps, 0 or more",
                error("C=f32,ulp=1.5"));
        assertEquals("--view 'C=f32,tol=1': unknown tolerance 'tol=1' (abs=X, rel=X or ulp=N)", error("C=f32,tol=1"));
        assertEquals("--view 'C=abs=1,abs=2': abs= given twice", error("C=abs=1,abs=2"));
        assertEquals("--view 'image:1=f32': an image is typed by its format; give it only tolerances "
                + "(image:1=abs=X,rel=X,ulp=N)", error("image:1=f32"));
        assertEquals("--view 'image:=abs=1': image: takes an image's index or name (image:1=abs=1e-3)",
                error("image:=abs=1"));
    }

    @Test
    void views_apply_in_order_a_later_one_replacing_what_it_names() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir);
        List<RangeView> views = RangeViews.of(c.kernel.memory(), "", List.of("out=f32,abs=1e-6,ulp=2", "0=rel=1e-5",
                "out=abs=1e-3"));
        RangeView out = views.get(0);
        assertEquals("f32", out.type().spelling());
        assertEquals(new Tolerance.Override(2, 1e-3, 1e-5), out.tolerance());
        assertTrue(views.get(1).tolerance().none());
        assertTrue(RangeViews.of(c.kernel.memory(), "", List.of("out=f32,abs=1", "out=u32")).get(0).tolerance().none(),
                "retyped as integers: compared exactly");
        assertEquals(List.of(Tolerance.Override.NONE, new Tolerance.Override(null, 1e-3, null)),
                RangeViews.images(c.kernel.images(), List.of("image:depth=abs=1e-3", "out=f32")));
        // image views are no range's, range views no image's
        assertTrue(RangeViews.of(c.kernel.memory(), "", List.of("image:1=abs=1")).stream()
                .allMatch(v -> v.tolerance().none() && !v.typed()));
        assertEquals("--view 'nope=abs=1': no range 'nope'; ranges: [0 (out), 1 (bins)]", assertThrows(
                IllegalArgumentException.class, () -> RangeViews.of(c.kernel.memory(), "", List.of("nope=abs=1")))
                .getMessage());
    }
}
