package org.replayfarm.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Element types from OpenCL C type names and --view spellings; ulp distances against Math.nextUp/nextDown. */
@Tag("unit")
class ElementTypeTest {
    @Test
    void pointer_type_names_and_view_spellings() {
        assertEquals(new ElementType(ElementType.Scalar.F32, 1), ElementType.fromPointerTypeName("float*"));
        assertEquals(new ElementType(ElementType.Scalar.I32, 2), ElementType.fromPointerTypeName("const int2 *"));
        assertEquals(new ElementType(ElementType.Scalar.F16, 1), ElementType.fromPointerTypeName("half*"));
        assertEquals(new ElementType(ElementType.Scalar.U8, 4), ElementType.fromPointerTypeName("uchar4*"));
        assertEquals(16, ElementType.fromPointerTypeName("float3*").bytes(), "a 3-vector takes a 4-vector's room");
        assertNull(ElementType.fromPointerTypeName("struct S*"));
        assertNull(ElementType.fromPointerTypeName("float**"));
        assertNull(ElementType.fromPointerTypeName("uint"));
        assertEquals("f32x4", ElementType.parseView("f32x4").spelling());
        assertEquals("u64", ElementType.parseView("ulong").spelling());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ElementType.parseView("f8")).getMessage()
                .contains("element type 'f8'"));
    }

    @Test
    void ulps_count_representable_values_between_and_refuse_nan_and_infinity() {
        ElementType f32 = ElementType.parseView("f32");
        float x = 1.7f;
        long a = Float.floatToRawIntBits(x);
        assertEquals(1, f32.ulps(a, Float.floatToRawIntBits(Math.nextUp(x))));
        assertEquals(3, f32.ulps(a, Float.floatToRawIntBits(Math.nextDown(Math.nextDown(Math.nextDown(x))))));
        assertEquals(0, f32.ulps(0, 0x8000_0000L), "+0 and -0 are one number");
        assertEquals(2, f32.ulps(Float.floatToRawIntBits(Float.MIN_VALUE), Float.floatToRawIntBits(-Float.MIN_VALUE)));
        assertEquals(Long.MAX_VALUE, f32.ulps(a, Float.floatToRawIntBits(Float.NaN)));
        assertEquals(Long.MAX_VALUE, f32.ulps(a, Float.floatToRawIntBits(Float.POSITIVE_INFINITY)));
        ElementType f64 = ElementType.parseView("f64");
        double d = -3.25;
        assertEquals(2, f64.ulps(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits(Math.nextUp(Math.nextUp(d)))));
        assertEquals(Long.MAX_VALUE, f64.ulps(Double.doubleToRawLongBits(Double.MAX_VALUE),
                Double.doubleToRawLongBits(-Double.MAX_VALUE)), "too far apart to count");
        ElementType f16 = ElementType.parseView("f16");
        assertEquals(1, f16.ulps(0x3C00, 0x3C01));
        assertEquals("1.0", f16.value(0x3C00));
        ElementType i16 = ElementType.parseView("i16");
        assertEquals(2, i16.ulps(0xFFFF, 0x0001), "-1 and 1 are 2 apart");
        assertEquals("-1", i16.value(0xFFFF));
    }
}
