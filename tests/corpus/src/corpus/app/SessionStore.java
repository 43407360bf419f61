package corpus.app;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Sessions by tenant, then by user. Sessions are opened but never expired. */
public class SessionStore {
    private Map<String, Map<String, List<Session>>> sessionsByTenant = new HashMap<>();

    public void open(Session session) {
        Map<String, List<Session>> byUser =
                sessionsByTenant.computeIfAbsent(session.tenant(), tenant -> new HashMap<>());
        List<Session> sessions = byUser.computeIfAbsent(session.user(), user -> new ArrayList<>());
        sessions.add(session); // GROWS
    }

    public int count(String tenant, String user) {
        Map<String, List<Session>> byUser = sessionsByTenant.get(tenant);
        if (byUser == null) {
            return 0;
        }
        List<Session> sessions = byUser.get(user);
        return sessions == null ? 0 : sessions.size();
    }
}
