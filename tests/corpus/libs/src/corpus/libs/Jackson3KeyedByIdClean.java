/*
 * Jackson3KeyedByIdClean: JacksonKeyedByIdClean on Jackson 3 (packages tools.jackson.*), whose
 * symbol tables have the same bounds (12,000 names read from text, 6,000 from bytes) and fill
 * the same way from JSON keyed by ids. The twin that keeps what it parses is
 * Jackson3KeyedByIdLeak.
 *
 * Expected:      CLEAN (not reported); the symbol tables listed as ignored, "known library
 *                growth: Jackson 3 keeps every distinct field name ..."
 * Library:       tools.jackson.core:jackson-databind 3.3.0 (jackson-core 3.3.0,
 *                com.fasterxml.jackson.core:jackson-annotations 2.23)
 * Watched field: INSTANCE_FIELD tools.jackson.core.TokenStreamFactory._rootCharSymbols
 *                  -> CharsToNameCanonicalizer (and _byteSymbolCanonicalizer)
 * Growth:        +1 name per loop in each table, up to Jackson's bound; nothing else
 */
package corpus.libs;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

public class Jackson3KeyedByIdClean implements Runnable {
    private static final TypeReference<Map<String, Integer>> LINES = new TypeReference<>() {};

    private final JsonMapper mapper = JsonMapper.builder().build();

    private int loop;

    @Override
    public void run() {
        loop++;
        byte[] request = ("{\"sku-" + loop + "\":2,\"gift-wrap\":1}").getBytes(StandardCharsets.UTF_8);
        Map<String, Integer> lines = mapper.readValue(request, LINES);
        Map<String, Integer> echoed = mapper.readValue("{\"order-" + loop + "\":3}", LINES);
        String response = mapper.writeValueAsString(Map.of("items", lines.size() + echoed.size()));
        if (!response.equals("{\"items\":3}")) {
            throw new IllegalStateException(response);
        }
    }
}
