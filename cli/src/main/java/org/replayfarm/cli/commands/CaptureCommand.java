package org.replayfarm.cli.commands;

import picocli.CommandLine.Command;

@Command(name = "capture", description = "Build and modify capture files.",
        mixinStandardHelpOptions = true, subcommands = {CaptureBuildCommand.class, CaptureAddRunCommand.class, CaptureNativeRunCommand.class, CaptureLavapipeRunCommand.class,
                CaptureExportCommand.class})
public final class CaptureCommand {
}
