/*
 * JacksonKeyedByIdClean: an order service that parses each request with one shared ObjectMapper,
 * as services do. The request's JSON is keyed by ids (a map of SKU to quantity), so every loop
 * brings field names Jackson has not seen: Jackson keeps each distinct name in its JsonFactory's
 * symbol tables, up to 12,000 read from text (CharsToNameCanonicalizer) and 6,000 from bytes
 * (ByteQuadsCanonicalizer), and then starts them over. Both tables gain about one name per loop
 * for the whole run, far from their bound: without heapgrowth's built-in rule the run reported
 * them as growing. The twin that keeps what it parses is JacksonKeyedByIdLeak.
 *
 * Expected:      CLEAN (not reported); the symbol tables listed as ignored, "known library
 *                growth: Jackson 2 keeps every distinct field name ..."
 * Library:       com.fasterxml.jackson.core:jackson-databind 2.23.0 (jackson-core 2.23.0,
 *                jackson-annotations 2.23)
 * Watched field: INSTANCE_FIELD com.fasterxml.jackson.core.JsonFactory._rootCharSymbols
 *                  -> CharsToNameCanonicalizer (and _byteSymbolCanonicalizer
 *                  -> ByteQuadsCanonicalizer): their tables gain a name per loop
 * Growth:        +1 name per loop in each table (a String or quads, and a bucket once the
 *                table's slots collide), up to Jackson's bound; nothing else
 * Measured:      heapgrowth before the rule (at 66f1a07, on jackson-databind 2.21.3): reported
 *                `CharsToNameCanonicalizer$TableInfo.buckets`, grown in spread (2,491 objects at
 *                or below, 1,624 new) after 1000 loops; with --confirm-loops 40000 it leveled off
 *                after loop 7,936 (the table started over past 12,000 names)
 */
package corpus.libs;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Map;

public class JacksonKeyedByIdClean implements Runnable {
    private static final TypeReference<Map<String, Integer>> LINES = new TypeReference<>() {};

    private final ObjectMapper mapper = new ObjectMapper();

    private int loop;

    @Override
    public void run() {
        loop++;
        byte[] request = ("{\"sku-" + loop + "\":2,\"gift-wrap\":1}").getBytes(StandardCharsets.UTF_8);
        try {
            Map<String, Integer> lines = mapper.readValue(request, LINES);
            Map<String, Integer> echoed = mapper.readValue("{\"order-" + loop + "\":3}", LINES);
            String response = mapper.writeValueAsString(Map.of("items", lines.size() + echoed.size()));
            if (!response.equals("{\"items\":3}")) {
                throw new IllegalStateException(response);
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
