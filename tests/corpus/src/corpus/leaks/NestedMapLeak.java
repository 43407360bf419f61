/*
 * NestedMapLeak: sessions kept in a Map<tenant, Map<user, List<Session>>>. The tenants and users
 * repeat (2 tenants x 2 users, so both map levels stay at a fixed size) but every loop opens a
 * new session for each of the 4 (tenant, user) pairs, and sessions are never expired.
 *
 * Expected:      LEAK
 * Growing node:  the 4 innermost java.util.ArrayList objects (one node: same path), values of
 *                the middle HashMaps, which are values of
 *                INSTANCE_FIELD corpus.app.SessionStore.sessionsByTenant -> java.util.HashMap,
 *                reached through STATIC_FIELD corpus.leaks.NestedMapLeak.store
 *                  -> corpus.app.SessionStore
 *                The outer HashMap (2 entries) and the middle HashMaps (2 x 2 entries) do not grow.
 * Growth:        +4 corpus.app.Session per loop, one in each innermost list (12 objects per loop
 *                with each session's token String and byte[])
 * Growing call:  corpus.app.SessionStore.open(SessionStore.java:16), 4 calls per loop
 *                  via corpus.leaks.NestedMapLeak.run(NestedMapLeak.java:38)
 * Shark:         reported (+8 per dump at the innermost lists)
 */
package corpus.leaks;

import corpus.app.Session;
import corpus.app.SessionStore;

public class NestedMapLeak implements Runnable {
    private static final String[] TENANTS = {"acme", "globex"};
    private static final String[] USERS = {"alice", "bob"};

    private static final SessionStore store = new SessionStore();

    private int loop;

    @Override
    public void run() {
        loop++;
        for (String tenant : TENANTS) {
            for (String user : USERS) {
                String token = tenant + "/" + user + "/" + loop;
                store.open(new Session(tenant, user, token)); // VIA (SessionStore.open grows)
            }
        }
    }
}
