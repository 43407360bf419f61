/*
 * LinkedChainLeak: a hand-written singly linked list whose head is a static field; every loop
 * prepends a node (head = new Node(payload, head)).
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.leaks.LinkedChainLeak.head -> corpus.leaks.LinkedChainLeak$Node
 *                The chain INSTANCE_FIELD LinkedChainLeak$Node.next -> LinkedChainLeak$Node
 *                repeats one key, so (as in shark) it folds into one node that gains one Node
 *                per loop; the growing node reported is the static field's (its child, the
 *                folded next-chain, grows).
 * Growth:        +1 LinkedChainLeak$Node per loop, each with a corpus.app.Item payload
 *                (4 objects per loop: Node, Item, sku String, byte[])
 * Growing call:  corpus.leaks.LinkedChainLeak.run(LinkedChainLeak.java:39) (a static field write:
 *                no collection to proxy, needs a field-modification watch)
 * Shark:         reported
 */
package corpus.leaks;

import corpus.app.Item;

public class LinkedChainLeak implements Runnable {
    static final class Node {
        final Object payload;
        final Node next;

        Node(Object payload, Node next) {
            this.payload = payload;
            this.next = next;
        }
    }

    private static Node head;

    private int loop;

    @Override
    public void run() {
        loop++;
        head = new Node(new Item("audit-" + loop, loop), head); // GROWS
    }
}
