package org.replayfarm.gpunode.device;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits an {@code exec:} command into words as a POSIX shell's tokenizer does (XCU 2.2, Quoting), and does
 * nothing else a shell does: no parameter expansion ({@code $VAR} stays as written), no globbing, no tilde, no
 * command substitution. Single quotes keep everything up to the next single quote; inside double quotes a backslash
 * escapes only {@code " \ $ `} and a newline (a backslash before a newline joins the lines); outside quotes a
 * backslash escapes any character. There is one command: an unquoted newline separates words as a blank does. An
 * unquoted operator of the shell ({@code | & ; < > ( )}) is refused rather than
 * passed on as a word: without a shell it would not do what it says ({@code sh -c '...'} gives one).
 */
public final class ShellWords {
    private static final String OPERATORS = "|&;<>()";

    private ShellWords() {
    }

    /**
     * The words of {@code command}.
     *
     * @throws IllegalArgumentException naming the character (1-based) where a quote is left open, a backslash
     *         escapes nothing, or an unquoted shell operator stands; or when there is no word at all
     */
    public static List<String> split(String command) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false; // '' and "" make a word of their own, empty
        int i = 0;
        int n = command.length();
        while (i < n) {
            char c = command.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                i++;
            } else if (c == '\'') {
                int close = command.indexOf('\'', i + 1);
                if (close < 0) {
                    throw new IllegalArgumentException("the single quote at character " + (i + 1) + " is not closed");
                }
                word.append(command, i + 1, close);
                inWord = true;
                i = close + 1;
            } else if (c == '"') {
                int open = i;
                i++;
                while (true) {
                    if (i >= n) {
                        throw new IllegalArgumentException("the double quote at character " + (open + 1) + " is not closed");
                    }
                    char d = command.charAt(i);
                    if (d == '"') {
                        i++;
                        break;
                    }
                    if (d == '\\' && i + 1 < n && "\"\\$`\n".indexOf(command.charAt(i + 1)) >= 0) {
                        if (command.charAt(i + 1) != '\n') { // backslash-newline: the lines join
                            word.append(command.charAt(i + 1));
                        }
                        i += 2;
                    } else {
                        word.append(d);
                        i++;
                    }
                }
                inWord = true;
            } else if (c == '\\') {
                if (i + 1 >= n) {
                    throw new IllegalArgumentException("the backslash at character " + (i + 1)
                            + " ends the command and escapes nothing");
                }
                if (command.charAt(i + 1) != '\n') {
                    word.append(command.charAt(i + 1));
                    inWord = true;
                }
                i += 2;
            } else if (OPERATORS.indexOf(c) >= 0) {
                throw new IllegalArgumentException("'" + c + "' at character " + (i + 1) + " is shell syntax, and the "
                        + "program runs without a shell: quote it to pass it on, or run sh -c '...'");
            } else {
                word.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        if (words.isEmpty()) {
            throw new IllegalArgumentException("the command names no program");
        }
        return List.copyOf(words);
    }
}
