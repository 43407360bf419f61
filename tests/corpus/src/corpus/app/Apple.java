package corpus.app;

public final class Apple extends Fruit {
    public Apple(int id) {
        super(id, 180);
    }
}
