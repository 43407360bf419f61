/*
 * Jackson3KeyedByIdLeak: the twin of Jackson3KeyedByIdClean that keeps every parsed order in a
 * static audit list and never trims it, as JacksonKeyedByIdLeak on Jackson 2.
 *
 * Expected:      LEAK
 * Library:       tools.jackson.core:jackson-databind 3.3.0
 * Growing field: STATIC_FIELD corpus.libs.Jackson3KeyedByIdLeak.AUDIT -> ArrayList
 * Growth:        +1 parsed map per loop (a LinkedHashMap with 2 entries, 2 keys, 2 Integers)
 * Growing call:  Jackson3KeyedByIdLeak.java:33 (the GROWS line)
 */
package corpus.libs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

public class Jackson3KeyedByIdLeak implements Runnable {
    private static final TypeReference<Map<String, Integer>> LINES = new TypeReference<>() {};

    static final List<Map<String, Integer>> AUDIT = new ArrayList<>();

    private final JsonMapper mapper = JsonMapper.builder().build();

    private int loop;

    @Override
    public void run() {
        loop++;
        byte[] request = ("{\"sku-" + loop + "\":2,\"gift-wrap\":1}").getBytes(StandardCharsets.UTF_8);
        AUDIT.add(mapper.readValue(request, LINES)); // GROWS
    }
}
