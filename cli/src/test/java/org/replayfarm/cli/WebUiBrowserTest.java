package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.EvalGate;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Await;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.ImageContents;
import org.replayfarm.proto.RecordedRun;
import org.replayfarm.cli.divergence.Mutants;

/**
 * The coordinator's web UI in a real headless Chromium, driven over the DevTools protocol, against one
 * coordinator (with an evaluator in it, on loopback, behind an API token) shared by the tests: signing in
 * with the token; a capture submitted through the page's form appears in the job list and its progress
 * moves; a difference planted in a shadow-pass run's device image is found through the viewer's region
 * list, and the inspector shows exactly the host and device values report.json (run-report/2) gives, at the
 * texel planted; cancel from the job list stops a running job. Screenshots of each page go to
 * {@code target/web-screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("browser")
class WebUiBrowserTest {
    private static final String TOKEN = "web-ui-test-token";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SHOTS = Path.of("target", "web-screenshots");
    private static final Path SHADOW = Toolchain.root().resolve("examples/shadow-pass/shadow.capture");
    /** The gate in front of the node's evaluator: open, except while a test holds the groups of its job. */
    private static final String GATE = "web-ui";

    @TempDir
    static Path dir;

    private FarmNode node;
    private Chromium browser;
    private String url;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void start() throws Exception {
        node = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"), dir.resolve("node"))
                .withEvalThreads(1).withSerializeMessages(true)
                // the cancel test's runaway job asks for a budget past the default limit: this node's operator allows it
                .withConfig(ConfigFactory.parseString("replay.api.token = \"" + TOKEN + "\"\nakka.loglevel = WARNING\n"
                                + "replay.coordinator.max-budget = 1000000000000")
                        .withFallback(EvalGate.config(GATE)))
                .withRoutes(jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir.resolve("uploads")))));
        url = node.httpUrl();
        browser = new Chromium(dir, 1400, 900);
        // the page wants the token: the form sets it as a cookie, and from then on the page (and its event
        // streams) reach the API
        browser.navigate(url + "/");
        browser.waitFor("document.querySelector('input[name=token]')", 20);
        browser.type("input[name=token]", TOKEN);
        browser.click("button[type=submit]");
        browser.waitFor("document.querySelector('#jobs')", 20);
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.close();
        }
        EvalGate.named(GATE).close();
        if (node != null) {
            node.close();
        }
    }

    private HttpResponse<byte[]> send(String method, String path, byte[] body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(java.time.Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + TOKEN)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private JsonNode json(String method, String path, String body) throws Exception {
        HttpResponse<byte[]> r = send(method, path, body == null ? null : body.getBytes());
        assertTrue(r.statusCode() / 100 == 2, path + ": " + r.statusCode() + " " + new String(r.body()));
        return JSON.readTree(r.body());
    }

    private String startJob(Path capture, String groups, String device) throws Exception {
        String sha = JSON.readTree(send("POST", "/captures", Files.readAllBytes(capture)).body()).get("sha256").asText();
        return json("POST", "/jobs", "{\"capture\": \"" + sha + "\", \"groups\": " + groups + ", \"device\": \""
                + device + "\", \"capture_name\": \"" + capture.getFileName() + "\"}").get("job").asText();
    }

    private JsonNode awaitEnd(String job) throws Exception {
        // the API's job state: polled (the event stream is the page's; a test reading it would re-implement it)
        return Await.value("job " + job + " to end", () -> json("GET", "/jobs/" + job, null),
                p -> !p.get("state").asText().equals("running"));
    }

    private long groupsDone(String job) throws Exception {
        return json("GET", "/jobs/" + job, null).get("groups_done").asLong();
    }

    private static String row(String job) {
        return "#jobs tr[data-job=\"" + job + "\"]";
    }

    @Test
    void a_capture_submitted_through_the_page_appears_and_its_progress_moves() throws Exception {
        // the job's groups wait at the evaluator's gate, and the test lets them through: the page sees the job part
        // done because the test holds it there, however fast the machine (12 groups ended in 0.2 s between two looks
        // of the page when it did not)
        EvalGate gate = EvalGate.named(GATE);
        gate.hold();
        try {
            browser.navigate(url + "/#/");
            browser.waitFor("document.querySelector('#jobs')", 20);
            browser.chooseFile("#capture", SHADOW);
            StringBuilder groups = new StringBuilder();
            for (int x = 0; x < 12; x++) {
                groups.append(x).append(",8 ");
            }
            browser.type("#groups", groups.toString().trim());
            browser.type("#device", "recorded");
            browser.click("#submit button[type=submit]");
            browser.waitFor("document.querySelector('#submit-msg a')", 60);
            assertEquals(100, browser.eval("document.querySelector('#upload').value").asInt(), "the upload bar reached its end");
            String job = browser.eval("decodeURIComponent(document.querySelector('#submit-msg a').getAttribute('href').split('/')[2])")
                    .asText();
            browser.waitFor("document.querySelector('" + row(job).replace("'", "\\'") + "')", 20);
            assertEquals("shadow.capture", browser.text(row(job) + " .capture"));
            browser.waitFor("document.querySelector('" + row(job).replace("'", "\\'") + " .groups').textContent.trim() === '0 / 12'", 60);

            // let the node's tasks (its capture fetch, then groups) through one at a time until the job is part done;
            // at most HELD of them, so at most HELD of the 12 groups end while the gate holds the rest
            final int held = 6;
            gate.releaseUntil(held, () -> groupsDone(job) > 0);
            long part = Await.value("job " + job + " part done", () -> groupsDone(job), d -> d > 0);
            assertTrue(part <= held, "no more groups ended than the gate let through: " + part);

            // the row follows the job over server-sent events: it shows the part done...
            browser.waitFor("(t => { const m = /^(\\d+) \\/ 12$/.exec(t || ''); return m && +m[1] > 0 && +m[1] < 12; })("
                    + "document.querySelector('" + row(job).replace("'", "\\'") + " .groups')?.textContent.trim())", 60);
            String partText = browser.text(row(job) + " .groups");
            assertEquals("running", browser.eval("document.querySelector('" + row(job).replace("'", "\\'")
                    + "').dataset.state").asText());
            browser.screenshot(SHOTS.resolve("jobs-running.png"));

            // ...then, the gate open, the total
            gate.open();
            browser.waitFor("document.querySelector('" + row(job).replace("'", "\\'") + "').dataset.state !== 'running'", 120);
            assertEquals("finished", browser.eval("document.querySelector('" + row(job).replace("'", "\\'")
                    + "').dataset.state").asText());
            assertEquals("12 / 12", browser.text(row(job) + " .groups"), "the page showed " + partText + " before");
            assertEquals("finished", json("GET", "/jobs/" + job, null).get("state").asText());

            // its page: the chart of its progress over time, and the comparison
            browser.click(row(job) + " a");
            browser.waitFor("document.querySelector('#chart') && document.querySelector('#chart').dataset.last === '12'", 30);
            browser.waitFor("document.querySelector('#summary .verdict')", 30);
            assertEquals("equal", browser.text("#summary .verdict"));
            assertTrue(browser.eval("Number(document.querySelector('#chart').dataset.points)").asInt() >= 2);
            assertEquals(json("GET", "/jobs/" + job + "/progress", null).get("points").size(),
                    browser.eval("Number(document.querySelector('#chart').dataset.points)").asInt(),
                    "the chart draws GET /jobs/<id>/progress");
            browser.screenshot(SHOTS.resolve("job.png"));
        } finally {
            gate.open();
        }
    }

    @Test
    void a_planted_difference_is_found_through_the_region_list_with_the_report_s_values() throws Exception {
        // the reference mask the capture carries, with one texel of group (3, 8, 0) changed: x 24..31, y 64..71
        CaptureFile file = CaptureFile.open(SHADOW);
        RecordedRun reference = file.metadata().getRuns(0);
        ImageContents mask = reference.getImagesList().stream().filter(i -> i.getImageIndex() == 2).findFirst().orElseThrow();
        ByteBuffer texels = file.blob(mask.getTexels());
        byte[] bytes = new byte[texels.remaining()];
        texels.get(bytes);
        int width = 240;
        int x = 27;
        int y = 67;
        int was = bytes[y * width + x] & 0xff;
        int planted = was ^ 0x5a;
        bytes[y * width + x] = (byte) planted;
        Path from = Files.createDirectories(dir.resolve("planted-run"));
        Files.write(from.resolve("image-2.raw"), bytes);
        Path capture = dir.resolve("shadow-planted.capture");
        CliRun added = CliRun.of("capture", "add-run", SHADOW.toString(), "--from", from.toString(), "--label", "planted",
                "-o", capture.toString());
        assertEquals(0, added.exitCode(), added.err());
        String job = startJob(capture, "[[3, 8, 0]]", "recorded:planted");
        assertEquals("finished", awaitEnd(job).get("state").asText());
        JsonNode report = json("GET", "/jobs/" + job + "/results/report.json", null);
        JsonNode image = report.get("comparison").get("images").get(2);
        assertEquals(1, image.get("differing").asInt(), image.toString());
        JsonNode value = image.get("values").get(0);
        assertEquals(x, value.get("col").asInt());
        assertEquals(y, value.get("row").asInt());

        // the jobs list says the comparison failed, not just that the job finished; the filter finds it
        browser.navigate(url + "/#/");
        browser.waitFor("(r => r && r.dataset.result === 'different')(document.querySelector('#jobs tr[data-job=\"" + job
                + "\"]'))", 30);
        assertEquals("different", browser.text("#jobs tr[data-job=\"" + job + "\"] .result"));
        browser.eval("(s => { s.value = 'equal'; s.dispatchEvent(new Event('change')); })(document.getElementById('result-filter'))");
        browser.waitFor("document.querySelector('#jobs tr[data-job=\"" + job + "\"]').hidden === true", 10);
        browser.eval("(s => { s.value = 'different'; s.dispatchEvent(new Event('change')); })(document.getElementById('result-filter'))");
        browser.waitFor("document.querySelector('#jobs tr[data-job=\"" + job + "\"]').hidden === false", 10);

        browser.navigate(url + "/#/job/" + job);
        browser.waitFor("document.querySelector('#images tr[data-image=\"2\"] a.view')", 30);
        browser.screenshot(SHOTS.resolve("job-different.png"));
        browser.click("#images tr[data-image=\"2\"] a.view");
        browser.waitFor("document.getElementById('main').dataset.ready === 'image'", 30);
        browser.click("#region-list tr[data-region=\"0\"]");
        browser.waitFor("document.querySelector('#inspector .host')", 30);
        assertEquals(String.valueOf(x), browser.text("#tx"));
        assertEquals(String.valueOf(y), browser.text("#ty"));
        // exactly the report's values, and the bits are the texel as planted
        assertEquals(value.get("host").get(0).asText(), browser.text("#inspector tr[data-ch=\"0\"] .host"));
        assertEquals(value.get("device").get(0).asText(), browser.text("#inspector tr[data-ch=\"0\"] .device"));
        assertEquals(String.format("0x%02x", was), browser.text("#inspector tr[data-ch=\"0\"] .hbits"));
        assertEquals(String.format("0x%02x", planted), browser.text("#inspector tr[data-ch=\"0\"] .dbits"));
        assertEquals(value.get("ulps").get(0).asText(), browser.text("#inspector tr[data-ch=\"0\"] .ulps"));
        assertEquals("(3, 8, 0)", browser.text("#inspector .group"));
        JsonNode store = value.get("stores").get(0);
        assertEquals(store.get("lane").asText(), browser.text("#inspector .stores .lane"));
        assertEquals(store.get("pc").asText(), browser.text("#inspector .stores .pc"));
        assertTrue(browser.eval("Number(document.getElementById('main').dataset.zoom)").asDouble() >= 8,
                "the viewer zoomed in on the region");
        assertEquals("27.50,67.50", browser.eval("document.getElementById('main').dataset.centre").asText(),
                "the region is at the centre of every pane");
        browser.screenshot(SHOTS.resolve("viewer-side-by-side.png"));
        browser.click("#mode-one");
        browser.click("#which button[data-src=\"device\"]");
        browser.waitFor("document.querySelectorAll('.pane').length === 1 && document.querySelector('.pane').dataset.pane === 'device'", 10);
        assertEquals("27.50,67.50", browser.eval("document.getElementById('main').dataset.centre").asText(),
                "one pane, wider: the same texel stays at its centre at the same zoom");
        browser.screenshot(SHOTS.resolve("viewer-toggle-device.png"));
    }

    /**
     * Issue 39: a job whose outputs hold an order-dependent location says so in the jobs list (Result
     * "order-dependent", a filter of its own), and a range's page shows each differing element's store trace and
     * what its order-dependent locations compared as.
     */
    @Test
    void order_dependent_results_and_a_ranges_store_trace_are_shown() throws Exception {
        Path hip = dir.resolve("fsum.hip");
        Files.writeString(hip, OrderDependentAtomicsTest.SOURCE.replace(", int *last", "")
                .replace("atomicExch(last, (int) blockIdx.x);", ""));
        ByteBuffer x = ByteBuffer.allocate(4 * 256).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 256; i++) {
            x.putFloat(0.25f + i / 64f);
        }
        Files.write(dir.resolve("x.bin"), x.array());
        Path capture = dir.resolve("fsum.capture");
        CliRun built = CliRun.of("capture", "build", "--source", hip.toString(), "--kernel", "fsum", "--groups", "4",
                "--group-size", "64", "--arg", "buffer:" + dir.resolve("x.bin"), "--arg", "zeros:4", "--arg", "u32:256",
                "-o", capture.toString(), "--native-run");
        assertEquals(0, built.exitCode(), built.out() + built.err());
        String equal = startJob(capture, "\"every\"", "recorded");
        assertEquals("finished", awaitEnd(equal).get("state").asText());
        // the same capture with a wrong sum recorded: beyond any order of the groups
        Path wrongRun = Files.createDirectories(dir.resolve("wrong-sum"));
        Files.write(wrongRun.resolve("guest-1.bin"), ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putFloat(12345.5f).array());
        Path wrong = dir.resolve("fsum-wrong.capture");
        CliRun added = CliRun.of("capture", "add-run", capture.toString(), "--from", wrongRun.toString(), "--label",
                "wrong", "-o", wrong.toString());
        assertEquals(0, added.exitCode(), added.err());
        String different = startJob(wrong, "\"every\"", "recorded:wrong");
        assertEquals("finished", awaitEnd(different).get("state").asText());

        browser.navigate(url + "/#/");
        browser.waitFor("(r => r && r.dataset.result === 'order-dependent')(document.querySelector('" + row(equal) + "'))", 30);
        assertEquals("order-dependent", browser.text(row(equal) + " .result"));
        browser.eval("(s => { s.value = 'order-dependent'; s.dispatchEvent(new Event('change')); })(document.getElementById('result-filter'))");
        browser.waitFor("document.querySelector('" + row(different) + "').hidden === true", 10);
        assertTrue(!browser.eval("document.querySelector('" + row(equal) + "').hidden").asBoolean());
        browser.eval("(s => { s.value = ''; s.dispatchEvent(new Event('change')); })(document.getElementById('result-filter'))");

        JsonNode value = json("GET", "/jobs/" + different + "/results/report.json", null).get("comparison")
                .get("ranges").get(1).get("values").get(0);
        browser.navigate(url + "/#/job/" + different + "/range/1");
        browser.waitFor("document.getElementById('main').dataset.ready === 'range'", 30);
        String stores = browser.text("#range-values tr.stores");
        assertTrue(stores.contains(value.get("stores").get(0).get("pc").asText()), stores);
        assertTrue(stores.contains("global_atomic_cmpswap"), stores);
        assertTrue(browser.text("#main .order-dependent").contains("beyond the reassociation bound"),
                browser.text("#main .order-dependent"));
        browser.screenshot(SHOTS.resolve("range-store-trace.png"));
    }

    /**
     * Issue 34: what {@code replay explain --first-divergence} finds in a job's outputs is shown on the job's page:
     * the instruction, the register and lanes with both values, the instructions before it.
     */
    @Test
    void the_first_divergence_explain_found_is_on_the_jobs_page() throws Exception {
        Path saxpy = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        String job = startJob(saxpy, "\"every\"", "recorded");
        assertEquals("finished", awaitEnd(job).get("state").asText());
        Path out = node.jobs().results(job).orElseThrow();
        Path t = dir.resolve("saxpy-planted");
        CliRun translated = CliRun.of("translate", saxpy.toString(), "--out", t.toString());
        assertEquals(0, translated.exitCode(), translated.out() + translated.err());
        String k = Files.readString(t.resolve("kernel.cu"));
        var site = Mutants.sites(k).stream().filter(m -> m.pc() == 0x100060084L).findFirst().orElseThrow();
        Files.writeString(t.resolve("kernel.cu"), Mutants.apply(k, site, Mutants.Operator.BITFLIP).orElseThrow());
        CliRun explained = CliRun.of("explain", out.toString(), "--first-divergence", "--device", "cuda-cpu:" + t,
                "--group", "0,0,0");
        assertEquals(0, explained.exitCode(), explained.out() + explained.err());

        browser.navigate(url + "/#/job/" + job);
        browser.waitFor("document.querySelector('#first-divergence')", 30);
        String shown = browser.text("#first-divergence");
        assertTrue(shown.contains("0x100060084") && shown.contains("v_fmac_f32"), shown);
        assertTrue(shown.contains("v3") && shown.contains("0x447a0000"), shown);
        browser.screenshot(SHOTS.resolve("job-first-divergence.png"));
    }

    @Test
    void cancel_on_the_job_list_stops_a_running_job() throws Exception {
        // a job that runs until it is cancelled, however fast the machine: each group loops under a budget of 1e12
        // instructions per wave (the shadow pass finished at 1,131 groups/s on a quiet machine before the click)
        Path dir = Files.createTempDirectory("webui-spin");
        Path asm = Files.writeString(dir.resolve("spin.s"), "loop:\ns_branch loop\ns_endpgm\n");
        Path spin = dir.resolve("spin.capture");
        CliRun built = CliRun.of("capture", "build", "--asm", asm.toString(), "--groups", "4", "--group-size", "1",
                "--arg", "zeros:64", "-o", spin.toString());
        assertEquals(0, built.exitCode(), built.err());
        String sha = JSON.readTree(send("POST", "/captures", Files.readAllBytes(spin)).body()).get("sha256").asText();
        String job = json("POST", "/jobs", "{\"capture\": \"" + sha + "\", \"groups\": \"every\", \"device\": \"none\", "
                + "\"budget\": 1000000000000, \"capture_name\": \"spin.capture\"}").get("job").asText();
        browser.navigate(url + "/#/");
        browser.waitFor("document.querySelector('" + row(job).replace("'", "\\'") + " button.cancel')", 60);
        browser.click(row(job) + " button.cancel");
        browser.waitFor("document.querySelector('" + row(job).replace("'", "\\'") + "').dataset.state === 'cancelled'", 30);
        JsonNode p = json("GET", "/jobs/" + job, null);
        assertEquals("cancelled", p.get("state").asText());
        assertTrue(p.get("groups_done").asLong() < p.get("groups_total").asLong(), p.toString());
        browser.screenshot(SHOTS.resolve("jobs-cancelled.png"));
    }
}
