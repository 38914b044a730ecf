package org.replayfarm.cli.commands;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureFormat;
import org.replayfarm.model.elf.CodeObjectLoader;
import org.replayfarm.model.elf.ElfFile;
import org.replayfarm.model.elf.KernelDescriptor;
import org.replayfarm.model.elf.LoadedCodeObject;
import org.replayfarm.model.isa.Listing;
import org.replayfarm.model.isa.Syntax;
import org.replayfarm.proto.Program;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import org.replayfarm.cli.Replay;

@Command(name = "disasm", mixinStandardHelpOptions = true,
        description = {"Disassemble gfx1030 code as llvm-objdump-19 -d --mcpu=gfx1030 prints it.",
                "FILE is a capture (its program), an HSA code object (its executable sections, kernel symbols "
                        + "as labels) or raw code (at address 0)."})
public final class DisasmCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE")
    Path file;

    @Option(names = "--wave64", description = "Spell lane masks for wave64 (vcc, s[0:1]). Captures and kernels "
            + "whose descriptor says wave64 use it without this flag.")
    boolean wave64;

    @Option(names = "--wave-size", paramLabel = "32|64", description = "The same as --wave32 / --wave64 (capture native-run's spelling).")
    void waveSize(int n) {
        Replay.checkWaveSize(spec, n);
        wave64 |= n == 64; // 32: the default (a wave64 descriptor still says its own)
    }

    @Option(names = "--kernel", paramLabel = "NAME", description = "Code object only: list just this kernel.")
    String kernel;

    @Override
    public Integer call() throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        PrintWriter out = spec.commandLine().getOut();
        if (bytes.length >= 8 && Arrays.equals(Arrays.copyOf(bytes, 8), CaptureFormat.MAGIC)) {
            capture(out);
        } else if (bytes.length >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') {
            codeObject(ElfFile.parse(bytes), out);
        } else {
            if (kernel != null) {
                throw new ParameterException(spec.commandLine(), "--kernel needs a code object; " + file + " is raw code");
            }
            print(out, Listing.lines(ByteBuffer.wrap(bytes), 0, Map.of(), ".text", syntax(false)));
            if (bytes.length % 4 != 0) {
                // instructions are whole 4-byte words: the tail is not code, and is said, not dropped in silence
                PrintWriter err = spec.commandLine().getErr();
                err.printf("replay disasm: %s ends with %d byte(s) after its last whole 4-byte word (offset 0x%x), "
                        + "not disassembled%n", file, bytes.length % 4, bytes.length / 4 * 4);
                err.flush();
            }
        }
        out.flush();
        return Replay.EXIT_OK;
    }

    private void capture(PrintWriter out) throws Exception {
        if (kernel != null) {
            throw new ParameterException(spec.commandLine(), "--kernel needs a code object; a capture holds one program");
        }
        CaptureFile capture = CaptureFile.open(file);
        Program p = capture.metadata().getProgram();
        String name = p.getKernelName().isEmpty() ? "entry" : p.getKernelName();
        out.printf("%s: capture, program %s, wave%d%n", file.getFileName(), name, p.getWaveSize());
        print(out, Listing.lines(capture.blob(p.getCode()), p.getCodeAddress(),
                Map.of(p.getCodeAddress() + p.getEntryOffset(), name), ".text", syntax(p.getWaveSize() == 64)));
    }

    private void codeObject(ElfFile elf, PrintWriter out) throws Exception {
        LoadedCodeObject loaded = CodeObjectLoader.load(elf, 0);
        boolean kernelWave64 = false;
        long from = Long.MIN_VALUE;
        long to = Long.MAX_VALUE;
        if (kernel != null) {
            ElfFile.Symbol function = elf.symbol(kernel).filter(s -> s.type() == 2)
                    .orElseThrow(() -> new ParameterException(spec.commandLine(), "no kernel '" + kernel + "' in " + file));
            from = function.value();
            to = function.value() + Math.max(4, function.size());
            long kd = loaded.symbolAddress(kernel + ".kd").orElseThrow(() -> new ParameterException(spec.commandLine(),
                    "'" + kernel + "' has no kernel descriptor " + kernel + ".kd in " + file));
            kernelWave64 = !KernelDescriptor.parse(loaded.bytesAt(kd, KernelDescriptor.SIZE), kernel + ".kd").wave32();
        }
        out.printf("%n%s:\tfile format elf64-amdgpu%n", file.getFileName());
        for (ElfFile.Section s : elf.sections()) {
            if ((s.flags() & ElfFile.SHF_EXECINSTR) == 0 || s.size() == 0) {
                continue;
            }
            Map<Long, String> labels = new TreeMap<>();
            for (ElfFile.Symbol sym : elf.symbols()) {
                if (sym.sectionIndex() == s.index() && sym.type() == 2 /* STT_FUNC */) {
                    labels.put(sym.value(), sym.name());
                }
            }
            long start = Math.max(from, s.address());
            long end = Math.min(to, s.address() + s.size());
            if (start >= end) {
                continue;
            }
            byte[] all = elf.contents(s);
            ByteBuffer code = ByteBuffer.wrap(all, (int) (start - s.address()), (int) (end - start));
            out.printf("%nDisassembly of section %s:%n", s.name());
            List<String> lines = Listing.lines(code, start, labels, s.name(), syntax(kernelWave64));
            print(out, lines);
        }
    }

    private Syntax syntax(boolean fromProgram) {
        return wave64 || fromProgram ? Syntax.WAVE64 : Syntax.WAVE32;
    }

    private static void print(PrintWriter out, List<String> lines) {
        lines.forEach(out::println);
    }
}
