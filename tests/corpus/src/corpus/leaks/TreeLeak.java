/*
 * TreeLeak: an index of Items in a hand-written, unbalanced binary search tree
 * (corpus.app.SearchTree) that gains one node per loop and never loses one. The keys are spread
 * ((loop * 7919) % 10007, distinct for loops 1..10006), so each new node is linked under a
 * different leaf: the growth is spread over many field paths (root.left.right.left..., of
 * depth 1 to about 20), and no single path gains a node in every loop.
 *
 * Expected:      LEAK
 * Growing node:  the whole tree under STATIC_FIELD corpus.leaks.TreeLeak.index
 *                  -> corpus.app.SearchTree -> INSTANCE_FIELD SearchTree.root
 *                  -> corpus.app.SearchTree$Node, whose INSTANCE_FIELD Node.left / Node.right
 *                  -> SearchTree$Node fields repeat (a tool that folds repeated fields, as shark
 *                  folds a next-chain, sees one node that gains a Node per loop; one that does
 *                  not fold sees +1 at a different depth and side each loop)
 * Growth:        +1 SearchTree$Node per loop with its corpus.app.Item (4 objects: Node, Item,
 *                sku String, byte[])
 * Growing call:  corpus.app.SearchTree.put(SearchTree.java:40) (a left link) or
 *                SearchTree.java:47 (a right link), SearchTree.java:29 in loop 1 (the
 *                root), all instance field writes: no collection to proxy
 *                  via corpus.leaks.TreeLeak.run(TreeLeak.java:51)
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11, 19, 35, 67, 131,
 *                259, 515 nodes (tree height 3, 4, 4, 5, 7, 8, 10, 12, 14, 15); JVM live objects
 *                +4.00 per loop
 * Today:         heapgrowth @2f1f225 (/work/before), default schedule, --no-attribution: reported
 *                but MIS-REPORTED, exit 1: the growing node is one subtree, root.left.right
 *                (INSTANCE_FIELD SearchTree$Node.right, children 0, 0, 2, 3, 4, 8, 12 objects), not
 *                the tree from SearchTree.root
 * Shark:         not run; by its rule reported only if left/right chains fold into one node;
 *                unfolded, no path gains 2 objects per dump
 */
package corpus.leaks;

import corpus.app.Item;
import corpus.app.SearchTree;

public class TreeLeak implements Runnable {
    public static final int KEY_SPACE = 10007;

    private static SearchTree index = new SearchTree();

    private int loop;

    static int keyOf(int loop) {
        return (int) ((loop * 7919L) % KEY_SPACE);
    }

    @Override
    public void run() {
        loop++;
        int key = keyOf(loop);
        index.put(key, new Item("sku-" + key, loop)); // VIA (SearchTree.put grows)
    }
}
