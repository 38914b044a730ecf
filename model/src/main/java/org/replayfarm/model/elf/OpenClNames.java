package org.replayfarm.model.elf;

import java.util.ArrayList;
import java.util.List;

/**
 * Itanium-mangled names of OpenCL C functions (clang's {@code overloadable} mangling, as the OpenCL C
 * built-ins are named: {@code _Z10atomic_incPU3AS3Vj}) spelled as an OpenCL C programmer writes the
 * declaration: {@code atomic_inc(volatile __local uint *)}. Covers what OpenCL C signatures use: builtin
 * types, {@code DvN_} vectors, pointers, {@code K}/{@code V}/{@code r} qualifiers, {@code U3ASn} address spaces
 * (amdgcn: 0 generic, 1 global, 3 local, 4 constant, 5 private) and substitutions. A name it cannot read
 * (C++ with namespaces or templates, or not mangled at all) is returned unchanged.
 */
public final class OpenClNames {
    private final String s;
    private int at;
    private final List<String> substitutions = new ArrayList<>();

    private OpenClNames(String s) {
        this.s = s;
    }

    /** The OpenCL C spelling of {@code symbol}, or {@code symbol} itself when it is not a mangled OpenCL C function. */
    public static String demangle(String symbol) {
        if (!symbol.startsWith("_Z")) {
            return symbol;
        }
        try {
            return new OpenClNames(symbol).function();
        } catch (RuntimeException unreadable) {
            return symbol;
        }
    }

    private String function() {
        at = 2;
        int length = number();
        String name = s.substring(at, at + length);
        at += length;
        List<String> params = new ArrayList<>();
        if (at < s.length() && s.charAt(at) == 'v' && at + 1 == s.length()) {
            at++;
        } else {
            while (at < s.length()) {
                params.add(type());
            }
        }
        return name + "(" + (params.isEmpty() ? "void" : String.join(", ", params)) + ")";
    }

    private int number() {
        int start = at;
        while (Character.isDigit(s.charAt(at))) {
            at++;
        }
        if (start == at) {
            throw new IllegalArgumentException("no number at " + start);
        }
        return Integer.parseInt(s.substring(start, at));
    }

    private String type() {
        char c = s.charAt(at);
        switch (c) {
            case 'P' -> {
                at++;
                String pointee = type();
                String t = pointee + (pointee.endsWith("*") ? "*" : " *");
                substitutions.add(t);
                return t;
            }
            case 'U', 'K', 'V', 'r' -> {
                List<String> qualifiers = new ArrayList<>();
                String space = null;
                while (true) {
                    char q = s.charAt(at);
                    if (q == 'U') {
                        at++;
                        int n = number();
                        String vendor = s.substring(at, at + n);
                        at += n;
                        space = addressSpace(vendor);
                    } else if (q == 'r') {
                        at++;
                        qualifiers.add("restrict");
                    } else if (q == 'V') {
                        at++;
                        qualifiers.add(0, "volatile");
                    } else if (q == 'K') {
                        at++;
                        qualifiers.add(0, "const");
                    } else {
                        break;
                    }
                }
                String base = type();
                StringBuilder t = new StringBuilder();
                for (String q : qualifiers) {
                    if (!q.equals("restrict")) {
                        t.append(q).append(' ');
                    }
                }
                if (space != null && !space.isEmpty()) {
                    t.append(space).append(' ');
                }
                t.append(base);
                if (qualifiers.contains("restrict")) {
                    t.append(" restrict");
                }
                substitutions.add(t.toString());
                return t.toString();
            }
            case 'S' -> {
                at++;
                int index = 0;
                if (s.charAt(at) != '_') {
                    int start = at;
                    while (s.charAt(at) != '_') {
                        at++;
                    }
                    index = Integer.parseInt(s.substring(start, at), 36) + 1;
                }
                at++;
                return substitutions.get(index);
            }
            case 'D' -> {
                if (s.startsWith("Dv", at)) {
                    at += 2;
                    int n = number();
                    if (s.charAt(at++) != '_') {
                        throw new IllegalArgumentException("bad vector");
                    }
                    String element = type();
                    String t = element + n;
                    substitutions.add(t);
                    return t;
                }
                if (s.startsWith("Dh", at)) {
                    at += 2;
                    return "half";
                }
                if (s.startsWith("DF16_", at)) {
                    at += 5;
                    return "_Float16";
                }
                throw new IllegalArgumentException("unknown D type");
            }
            default -> {
                at++;
                return switch (c) {
                    case 'v' -> "void";
                    case 'b' -> "bool";
                    case 'c' -> "char";
                    case 'a' -> "signed char";
                    case 'h' -> "uchar";
                    case 's' -> "short";
                    case 't' -> "ushort";
                    case 'i' -> "int";
                    case 'j' -> "uint";
                    case 'l' -> "long";
                    case 'm' -> "ulong";
                    case 'x' -> "long long";
                    case 'y' -> "unsigned long long";
                    case 'f' -> "float";
                    case 'd' -> "double";
                    default -> throw new IllegalArgumentException("unknown type " + c);
                };
            }
        }
    }

    /** amdgcn's OpenCL address spaces (AMDGPUUsage, "Address Spaces") and clang's names for targets without them. */
    private static String addressSpace(String vendor) {
        return switch (vendor) {
            case "AS0", "CLgeneric" -> "__generic";
            case "AS1", "CLglobal" -> "__global";
            case "AS3", "CLlocal" -> "__local";
            case "AS4", "CLconstant" -> "__constant";
            case "AS5", "CLprivate" -> "__private";
            default -> vendor;
        };
    }
}
