package org.replayfarm.cli;

/** Placeholder replaced below. */
final class K8sImagesTest {
    static final long UID = 10001;
}
