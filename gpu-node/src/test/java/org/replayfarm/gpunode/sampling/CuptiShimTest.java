package org.replayfarm.gpunode.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The CUPTI shim as built here: it must exist wherever the CUDA toolkit's headers are, load, report the
 * CUPTI version the headers declare (cuptiGetVersion runs without a GPU), and fail cleanly, naming the
 * call, where no GPU context exists. Sampling itself runs only on a GPU.
 */
@Tag("unit")
class CuptiShimTest {
    private static final Path CUDA = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"));
    private static final Path BUILT = Path.of("target", "native", CuptiShim.LIBRARY);

    private static void assumeBuilt() {
        boolean headers = Files.isRegularFile(CUDA.resolve("include/cupti_pcsampling.h"));
        if (headers) {
            assertTrue(Files.isRegularFile(BUILT), "CUPTI headers are here, so the build must have made " + BUILT);
        }
        assumeTrue(headers, "no CUDA toolkit under " + CUDA + ": the shim is not built on this machine");
    }

    @Test
    void the_shim_reports_the_cupti_version_its_headers_declare() throws Exception {
        assumeBuilt();
        Matcher m = Pattern.compile("#define CUPTI_API_VERSION (\\d+)")
                .matcher(Files.readString(CUDA.resolve("include/cupti_version.h")));
        assertTrue(m.find());
        assertEquals(Integer.parseInt(m.group(1)), CuptiShim.version(BUILT));
    }

    @Test
    void without_a_gpu_context_configure_fails_with_the_cupti_call_named() throws Exception {
        assumeBuilt();
        CuptiShim shim = CuptiShim.load(BUILT, 0);
        PcSampler.SamplingException e = assertThrows(PcSampler.SamplingException.class,
                () -> shim.configure(SamplingMode.SERIALIZED));
        // the first call that needs a context fails (activity registration may succeed without one); never a
        // stall-reason query, which CUPTI refuses before Enable
        assertTrue(e.getMessage().matches("(cuptiActivityRegisterCallbacks|cuptiActivityEnable\\(CONCURRENT_KERNEL\\)"
                + "|cuptiPCSamplingEnable): CUPTI error .*"), e.getMessage());
    }

    @Test
    void an_absent_library_is_said_to_be_absent() {
        PcSampler.SamplingException e = assertThrows(PcSampler.SamplingException.class,
                () -> CuptiShim.load(Path.of("target", "nowhere", CuptiShim.LIBRARY), 0));
        assertTrue(e.getMessage().contains("the CUPTI shim is absent"), e.getMessage());
    }
}
