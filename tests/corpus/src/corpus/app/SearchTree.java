package corpus.app;

/**
 * A hand-written binary search tree of Items by int key, not balanced: each node has a
 * {@code left} and a {@code right} field, and a new node is linked below whichever leaf its key
 * leads to, so different keys grow the tree at different field paths.
 */
public class SearchTree {
    /** One node: keys smaller than {@code key} go left, larger go right. */
    static final class Node {
        final int key;
        final Item value;
        Node left;
        Node right;

        Node(int key, Item value) {
            this.key = key;
            this.value = value;
        }
    }

    private Node root;
    private int size;

    /** Adds {@code key} (keys are distinct in the corpus; an existing key is left as it is). */
    public void put(int key, Item value) {
        Node node = new Node(key, value); // ALLOCATED
        if (root == null) {
            root = node; // GROWS
            size++;
            return;
        }
        Node parent = root;
        while (true) {
            if (key == parent.key) {
                return;
            }
            if (key < parent.key) {
                if (parent.left == null) {
                    parent.left = node; // GROWS
                    size++;
                    return;
                }
                parent = parent.left;
            } else {
                if (parent.right == null) {
                    parent.right = node; // GROWS
                    size++;
                    return;
                }
                parent = parent.right;
            }
        }
    }

    public Item get(int key) {
        Node node = root;
        while (node != null) {
            if (key == node.key) {
                return node.value;
            }
            node = key < node.key ? node.left : node.right;
        }
        return null;
    }

    /** Removes {@code key} if it is there (Hibbard deletion: a node with two children is replaced
     * by the smallest node of its right subtree). */
    public void remove(int key) {
        if (get(key) != null) {
            root = remove(root, key);
            size--;
        }
    }

    private static Node remove(Node node, int key) {
        if (key < node.key) {
            node.left = remove(node.left, key);
            return node;
        }
        if (key > node.key) {
            node.right = remove(node.right, key);
            return node;
        }
        if (node.left == null) {
            return node.right;
        }
        if (node.right == null) {
            return node.left;
        }
        Node successor = node.right;
        while (successor.left != null) {
            successor = successor.left;
        }
        successor.right = removeMin(node.right);
        successor.left = node.left;
        return successor;
    }

    private static Node removeMin(Node node) {
        if (node.left == null) {
            return node.right;
        }
        node.left = removeMin(node.left);
        return node;
    }

    public int size() {
        return size;
    }
}
