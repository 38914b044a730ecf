/**
 * What the translator's vector emitter knows of each VALU mnemonic ({@link
 * org.replayfarm.gpunode.translate.vector.ValuOps}): how its rt_valu.h function is called and the value types of
 * its sources and result. A mnemonic missing here is refused by {@code VectorEmitter}, naming it.
 */
package org.replayfarm.gpunode.translate.vector;
