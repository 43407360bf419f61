/*
 * LargeHeap: holds 64 MiB of byte arrays from its constructor on and changes nothing after; a
 * heap dump of it is large (the end-to-end tests use it for a dump that cannot be written under
 * a file size limit, as on a full disk).
 *
 * Expected: CLEAN.
 */
package corpus.clean;

public class LargeHeap implements Runnable {
    private final byte[][] ballast = new byte[64][1 << 20];
    private int calls;

    @Override
    public void run() {
        calls++;
        ballast[calls % ballast.length][0] = (byte) calls;
    }
}
