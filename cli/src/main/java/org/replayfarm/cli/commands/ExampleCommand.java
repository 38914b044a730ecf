package org.replayfarm.cli.commands;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import org.replayfarm.cli.examples.ShadowPass;
import org.replayfarm.cli.examples.ShadowScene;
import org.replayfarm.model.bvh.BvhBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "example", mixinStandardHelpOptions = true, description = "Generate an example's inputs.",
        subcommands = {ExampleCommand.ShadowPassCommand.class})
public final class ExampleCommand {
    @Command(name = "shadow-pass", mixinStandardHelpOptions = true,
            description = {"The shadow pass's seeded scene and inputs: scene.bvh (RDNA 2 nodes, root at 0), depth.raw "
                    + "(32 FLOAT), normals.raw (8_8_8_8 UNORM stored as z, y, x, w), camera.bin, and the independent "
                    + "reference mask reference-mask.raw (8 UNORM, half size) with grazes.txt (rays within the "
                    + "reference's edge epsilon, x,y a line); mask-initial.raw, the mask image's contents before the "
                    + "pass (every texel " + ShadowPass.UNWRITTEN + ", a value the kernel never stores); and "
                    + "reference/image-2.raw, the reference mask named as image 2 of the capture examples/shadow-pass/"
                    + "BUILD makes (images depth, normals, mask in that order), for replay capture add-run --from."})
    static final class ShadowPassCommand implements Callable<Integer> {
        @Option(names = "--width", defaultValue = "1920", description = "Frame width (default ${DEFAULT-VALUE}).")
        int width;
        @Option(names = "--height", defaultValue = "1080", description = "Frame height (default ${DEFAULT-VALUE}).")
        int height;
        @Option(names = "--seed", defaultValue = "" + ShadowScene.DEFAULT_SEED, description = "Scene seed.")
        long seed;
        @Option(names = "--out", required = true, description = "Directory to write.")
        Path out;

        @Override
        public Integer call() throws Exception {
            if (width < 2 || height < 2 || width > 8192 || height > 8192) {
                System.err.println("--width and --height must be 2..8192");
                return 2;
            }
            ShadowScene scene = ShadowScene.generate(seed, width, height);
            BvhBuilder.Bvh bvh = BvhBuilder.build(scene.triangles(), 3);
            ShadowPass.Inputs in = ShadowPass.generate(scene, width, height);
            Files.createDirectories(out);
            Files.write(out.resolve("scene.bvh"), bvh.nodes());
            Files.write(out.resolve("depth.raw"), ShadowPass.depthBytes(in));
            Files.write(out.resolve("normals.raw"), in.normals());
            Files.write(out.resolve("camera.bin"), in.camera());
            Files.write(out.resolve("reference-mask.raw"), in.referenceMask());
            Files.write(out.resolve("grazes.txt"), in.grazes());
            byte[] initial = new byte[in.referenceMask().length];
            Arrays.fill(initial, (byte) ShadowPass.UNWRITTEN);
            Files.write(out.resolve("mask-initial.raw"), initial);
            Files.createDirectories(out.resolve("reference"));
            Files.write(out.resolve("reference").resolve("image-" + ShadowPass.MASK_IMAGE + ".raw"), in.referenceMask());
            System.out.printf("%d triangles; BVH %d bytes (%d box32, %d box16, %d triangle nodes, %d paired triangles); "
                            + "frame %dx%d, mask %dx%d, %d grazing rays%n", scene.triangles().length / 9,
                    bvh.nodes().length, bvh.box32Nodes(), bvh.box16Nodes(), bvh.triangleNodes(), bvh.pairedTriangles(),
                    width, height, in.maskWidth(), in.maskHeight(), in.grazes().size());
            return 0;
        }
    }
}
