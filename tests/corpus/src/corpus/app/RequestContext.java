package corpus.app;

/** Per-request state that handlers reach through a ThreadLocal. */
public final class RequestContext {
    private final String requestId;
    private final byte[] body;

    public RequestContext(String requestId, byte[] body) {
        this.requestId = requestId;
        this.body = body;
    }

    public String requestId() {
        return requestId;
    }

    public int bodyLength() {
        return body.length;
    }
}
