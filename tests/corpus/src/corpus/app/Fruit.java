package corpus.app;

/** Something that goes into a basket. */
public abstract class Fruit {
    private final int id;
    private final int grams;

    protected Fruit(int id, int grams) {
        this.id = id;
        this.grams = grams;
    }

    public int id() {
        return id;
    }

    public int grams() {
        return grams;
    }
}
