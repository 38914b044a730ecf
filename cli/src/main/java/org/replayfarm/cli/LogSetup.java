package org.replayfarm.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The distribution's logging, set up in code (logback finds it through {@code META-INF/services} when no
 * {@code logback.xml} is on the class path): Akka and the farm log to stderr, root level {@code REPLAY_LOG_LEVEL}
 * (a system property or the environment; default WARN), as {@code HH:mm:ss.SSS LEVEL logger - message}.
 *
 * <p>It was a {@code logback.xml}: Joran (logback's XML configurator, with the JDK's SAX parser) took 0.2-0.3 s of
 * the main thread at every start of {@code replay}, before any command ran. {@code -Dlogback.configurationFile=FILE}
 * still configures logback from a file instead.
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
    static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%n";

    @Override
    public void configure(LoggerContext context) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(level());
        root.addAppender(stderr);
    }

    /** {@code REPLAY_LOG_LEVEL}: a system property, else the environment variable; WARN when unset or unknown. */
    static Level level() {
        String v = System.getProperty("REPLAY_LOG_LEVEL");
        if (v == null || v.isBlank()) {
            v = System.getenv("REPLAY_LOG_LEVEL");
        }
        return v == null || v.isBlank() ? Level.WARN : Level.toLevel(v.trim(), Level.WARN);
    }
}
