package org.replayfarm.gpunode.translate.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.isa.AtomicOp;

/**
 * rt_atomic.h numbers the atomic operations as the model's {@link AtomicOp} lists them (the emitters write
 * {@code RT_AOP_<NAME>}, the header tests send the ordinal), and it is the only runtime header that defines
 * them or switches over their arithmetic.
 */
@Tag("unit")
class AtomicOpInStepTest {
    @Test
    void rt_atomic_h_lists_the_model_operations_in_order() {
        Matcher m = Pattern.compile("enum \\{([^}]*RT_AOP_[^}]*)\\}").matcher(Translator.resource("rt_atomic.h"));
        assertTrue(m.find(), "rt_atomic.h has the RT_AOP_ enum");
        List<String> c = new ArrayList<>();
        for (String name : m.group(1).split(",")) {
            c.add(name.trim().replace("RT_AOP_", ""));
        }
        List<String> java = new ArrayList<>();
        for (AtomicOp op : AtomicOp.values()) {
            java.add(op.name());
        }
        assertEquals(java, c, "RT_AOP_* in rt_atomic.h against org.replayfarm.model.isa.AtomicOp");
    }

    @Test
    void only_rt_atomic_h_defines_or_switches_over_the_operations() {
        for (String header : List.of("rt_mem.h", "rt_image.h")) {
            String text = Translator.resource(header);
            assertTrue(text.contains("#include \"rt_atomic.h\""), header + " includes rt_atomic.h");
            assertTrue(!text.contains("enum { RT_AOP_") && !text.contains("enum {\n  RT_AOP_"),
                    header + " defines no atomic operations of its own");
            assertTrue(!text.contains("case RT_AOP_FCMPSWAP") && !text.contains("case RT_AOP_CMPSWAP: r ="),
                    header + " has no arithmetic switch of its own");
        }
    }
}
