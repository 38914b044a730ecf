/**
 * The gfx1030 (RDNA 2) instruction set: the opcode tables, one per encoding, read from {@code <ENCODING>.tsv}
 * beside this package ({@link org.replayfarm.model.isa.OpcodeTable}, {@code Opcode}, with the memory and VALU facts
 * read off each row), the decoder ({@link org.replayfarm.model.isa.Decoder}, {@code Instruction},
 * {@code DecodedProgram}), and the disassembler that prints instructions exactly as llvm-objdump-19 does ({@link
 * org.replayfarm.model.isa.Disassembler}, {@code Listing}). The host model, the translator, {@code replay disasm}
 * and the RADV assembly check all key on it.
 */
package org.replayfarm.model.isa;
