package corpus.app;

/** Data attached to a request. Holds no reference back to whatever key it is stored under. */
public final class Payload {
    private final int id;
    private final byte[] data;

    public Payload(int id) {
        this.id = id;
        this.data = new byte[128];
        this.data[0] = (byte) id;
    }

    public int id() {
        return id;
    }

    public int length() {
        return data.length;
    }
}
