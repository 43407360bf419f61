package corpus.app;

public final class Orange extends Fruit {
    public Orange(int id) {
        super(id, 140);
    }
}
