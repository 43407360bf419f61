/*
 * TreeChurn: the clean twin of leaks.TreeLeak. The same spread keys go into the same kind of tree,
 * but every loop also deletes the key inserted 16 loops earlier, so the tree holds at most the
 * last 16 keys; its shape keeps changing (nodes are linked and unlinked at many field paths).
 *
 * Expected:      CLEAN (not reported)
 * Watched node:  STATIC_FIELD corpus.clean.TreeChurn.index -> corpus.app.SearchTree
 *                  -> INSTANCE_FIELD SearchTree.root -> corpus.app.SearchTree$Node (left/right):
 *                1, 2, ... 16 nodes after loops 1..16, then 16 forever (4 objects per node)
 * Bound reached: loop 16
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 16, 16, 16, 16,
 *                16, 16 nodes (height 3, 4, 4, 5, 7, 7, 10, 12, 14, 14); after every loop 1..16: 1,
 *                2, ... 16; JVM live objects +0 per loop after loop 19
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: not
 *                reported, exit 0 (23 loops, 7 snapshots; leveled_off: INSTANCE_FIELD
 *                SearchTree$Node.right -> SearchTree$Node)
 * Shark:         not run; the tree gains 2 nodes per dump of 2 loops until loop 16, then 0
 */
package corpus.clean;

import corpus.app.Item;
import corpus.app.SearchTree;

public class TreeChurn implements Runnable {
    public static final int KEY_SPACE = 10007;
    public static final int WINDOW = 16;

    private static SearchTree index = new SearchTree();

    private int loop;

    static int keyOf(int loop) {
        return (int) ((loop * 7919L) % KEY_SPACE);
    }

    @Override
    public void run() {
        loop++;
        int key = keyOf(loop);
        index.put(key, new Item("sku-" + key, loop));
        if (loop > WINDOW) {
            index.remove(keyOf(loop - WINDOW));
        }
    }
}
