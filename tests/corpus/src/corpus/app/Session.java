package corpus.app;

/** A login session of one user of one tenant. */
public final class Session {
    private final String tenant;
    private final String user;
    private final String token;

    public Session(String tenant, String user, String token) {
        this.tenant = tenant;
        this.user = user;
        this.token = token;
    }

    public String tenant() {
        return tenant;
    }

    public String user() {
        return user;
    }

    public String token() {
        return token;
    }
}
