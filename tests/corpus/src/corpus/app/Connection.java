package corpus.app;

/** A connection leased from a pool: what a client checks out and must give back. */
public final class Connection {
    private final int id;
    private final String host;
    private final byte[] buffer = new byte[64];

    public Connection(int id, String host) {
        this.id = id;
        this.host = host;
    }

    public int id() {
        return id;
    }

    public String host() {
        return host;
    }

    public int send(String message) {
        buffer[0] = (byte) message.length();
        return message.length();
    }
}
