/**
 * The semantics table: every opcode-table row joined to the handler that executes it ({@link
 * org.replayfarm.evalnode.hostmodel.semantics.Semantics}) and its {@link
 * org.replayfarm.evalnode.hostmodel.semantics.Fidelity}, built once from one flat registration of the units
 * ({@code Units}). A row without a handler is unsupported: the model refuses it with a fault naming it.
 */
package org.replayfarm.evalnode.hostmodel.semantics;
