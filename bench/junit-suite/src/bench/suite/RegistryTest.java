package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A session registry: three clean tests, a session that is never logged out, an audit trail. */
class RegistryTest {
    static final class Session {
        final String user;
        final long loginAt;

        Session(String user, long loginAt) {
            this.user = user;
            this.loginAt = loginAt;
        }
    }

    private static final Map<String, Session> SESSIONS = new HashMap<>();
    private static final List<String> AUDIT = new ArrayList<>();
    private final Map<String, Session> sessions = new HashMap<>();
    private final Set<String> online = new HashSet<>();
    private int loop;

    @HeapGrowthTest
    void logsInAndOut() {
        long started = System.nanoTime();
        String user = "user-" + loop++;
        sessions.put(user, new Session(user, loop));
        sessions.remove(user);
        Loops.done(started);
    }

    @HeapGrowthTest
    void forgetsToLogOut() {
        long started = System.nanoTime();
        String user = "user-" + loop++;
        SESSIONS.put(user, new Session(user, loop)); // GROWS
        Loops.done(started);
    }

    @HeapGrowthTest
    void auditsEveryLogin() {
        long started = System.nanoTime();
        AUDIT.add("login " + loop++); // GROWS
        Loops.done(started);
    }

    @HeapGrowthTest
    void tracksASetOfUsers() {
        long started = System.nanoTime();
        online.add("user-" + (loop++ % 4));
        Loops.done(started);
    }

    @HeapGrowthTest
    void replacesASession() {
        long started = System.nanoTime();
        sessions.put("admin", new Session("admin", loop++));
        Loops.done(started);
    }
}
