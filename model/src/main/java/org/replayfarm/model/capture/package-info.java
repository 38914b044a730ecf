/**
 * The capture file: opening one with its metadata validated and its blobs memory-mapped ({@link
 * org.replayfarm.model.capture.CaptureFile}), writing one deterministically ({@link
 * org.replayfarm.model.capture.CaptureWriter}), checking metadata against blobs ({@code CaptureValidator}), the
 * layout constants ({@code CaptureFormat}, described in {@code capture.proto}), the error naming a bad field
 * ({@link org.replayfarm.model.capture.CaptureFormatException}), and SHA-256 and texel sizes ({@code Sha256},
 * {@code TexelLayout}). Every module reads captures through it.
 */
package org.replayfarm.model.capture;
