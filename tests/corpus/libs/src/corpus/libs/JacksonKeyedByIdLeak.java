/*
 * JacksonKeyedByIdLeak: the twin of JacksonKeyedByIdClean that also keeps every parsed order in
 * a static audit list and never trims it. Jackson's symbol tables grow as in the clean twin (and
 * are ignored as known library growth); the list is the user's leak and must still be reported.
 *
 * Expected:      LEAK
 * Library:       com.fasterxml.jackson.core:jackson-databind 2.23.0
 * Growing field: STATIC_FIELD corpus.libs.JacksonKeyedByIdLeak.AUDIT -> ArrayList
 * Growth:        +1 parsed map per loop (a LinkedHashMap with 2 entries, 2 keys, 2 Integers)
 * Growing call:  JacksonKeyedByIdLeak.java:36 (the GROWS line)
 */
package corpus.libs;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

public class JacksonKeyedByIdLeak implements Runnable {
    private static final TypeReference<Map<String, Integer>> LINES = new TypeReference<>() {};

    static final List<Map<String, Integer>> AUDIT = new ArrayList<>();

    private final ObjectMapper mapper = new ObjectMapper();

    private int loop;

    @Override
    public void run() {
        loop++;
        byte[] request = ("{\"sku-" + loop + "\":2,\"gift-wrap\":1}").getBytes(StandardCharsets.UTF_8);
        try {
            Map<String, Integer> lines = mapper.readValue(request, LINES);
            AUDIT.add(lines); // GROWS
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
