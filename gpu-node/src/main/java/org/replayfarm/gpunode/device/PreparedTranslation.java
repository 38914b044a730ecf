package org.replayfarm.gpunode.device;

import java.io.IOException;
import java.util.stream.Collectors;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.gpunode.translate.image.ImageBundle;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The step both translation backends ({@code cuda}, {@code cuda-cpu}) open a run with: the capture's program
 * translated (refused, naming every refused instruction), the capture's images and BVH nodes laid out as the
 * device's images section, and the translation built by the backend's compiler (nvcc or g++, cached by hash).
 * Each failure is a {@link DeviceException} that starts with the backend's kind and says what failed.
 *
 * @param <B> what the backend's build gives (a fat binary, a CPU runner)
 */
public record PreparedTranslation<B>(Translation translation, byte[] imagesSection, B built) {
    /** A backend's compiler: nvcc for {@code cuda}, g++ for {@code cuda-cpu}. */
    @FunctionalInterface
    public interface Build<B> {
        B build(Translation t) throws IOException;
    }

    /**
     * @param kind     the backend's kind, which every message starts with
     * @param compiler the compiler's name for the message when the build fails
     */
    public static <B> PreparedTranslation<B> of(String kind, String compiler, CaptureFile capture, Build<B> build)
            throws DeviceException {
        return of(kind, compiler, capture, new Translator().translate(ProgramInfo.of(capture)), build);
    }

    /** A backend's build of a translation folder as it lies (g++ or nvcc). */
    @FunctionalInterface
    public interface FolderBuild<B> {
        B build(java.nio.file.Path folder) throws IOException;
    }

    /**
     * A translation folder ({@code replay translate --out DIR}, perhaps edited: {@code cuda-cpu:DIR}, {@code cuda:DIR})
     * built as it lies instead of the capture's program translated now; the capture is translated too (for the
     * images section and the fidelity counts) and its listing checked against the folder's guest.s: a folder made
     * from another program is refused, naming the capture's kernel.
     */
    public static <B> PreparedTranslation<B> ofFolder(String kind, String compiler, CaptureFile capture,
                                                      java.nio.file.Path folder, FolderBuild<B> build)
            throws DeviceException {
        if (!java.nio.file.Files.isDirectory(folder)) {
            throw new DeviceException(kind + ": no such folder");
        }
        return of(kind, compiler, capture, t -> {
            java.nio.file.Path listing = folder.resolve("guest.s");
            if (java.nio.file.Files.isRegularFile(listing)
                    && !java.nio.file.Files.readString(listing).equals(t.guestListing())) {
                throw new IOException("its guest.s is not the listing of this capture's program ('"
                        + org.replayfarm.model.elf.OpenClNames.demangle(capture.metadata().getProgram().getKernelName())
                        + "'): it was translated from another capture (replay translate CAPTURE --out DIR writes a "
                        + "folder for one capture)");
            }
            return build.build(folder);
        });
    }

    /**
     * The same with the capture's program already translated (the corpus test translates every variant once and
     * hands the translation on instead of translating it a second time).
     *
     * @param t the translation of {@code capture}'s program ({@code new Translator().translate(ProgramInfo.of(capture))})
     */
    public static <B> PreparedTranslation<B> of(String kind, String compiler, CaptureFile capture, Translation t,
                                                Build<B> build) throws DeviceException {
        if (!t.ok()) {
            throw new DeviceException(kind + ": the translation of '" + org.replayfarm.model.elf.OpenClNames.demangle(
                    capture.metadata().getProgram().getKernelName())
                    + "' is refused (" + t.refusals().size() + " instructions):\n" + t.refusals().stream()
                    .map(r -> "  " + r.getMessage()).collect(Collectors.joining("\n")));
        }
        byte[] section;
        try {
            section = ImageBundle.section(capture);
        } catch (IllegalArgumentException e) {
            throw new DeviceException(kind + ": the capture's images cannot go to the device: " + e.getMessage(), e);
        }
        B built;
        try {
            built = build.build(t);
        } catch (IOException e) {
            throw new DeviceException(kind + ": " + compiler + " could not build the translation: " + e.getMessage(), e);
        }
        return new PreparedTranslation<>(t, section, built);
    }
}
