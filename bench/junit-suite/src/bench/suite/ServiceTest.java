package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** A small request handler: four clean tests and one that registers a listener per request. */
class ServiceTest {
    static final class Request {
        final String path;
        final Map<String, String> headers = new HashMap<>();

        Request(String path) {
            this.path = path;
        }
    }

    static final class Handler {
        private final List<Consumer<String>> listeners = new ArrayList<>();

        String handle(Request request) {
            String response = "200 " + request.path;
            for (Consumer<String> listener : listeners) {
                listener.accept(response);
            }
            return response;
        }

        void addListener(Consumer<String> listener) {
            listeners.add(listener);
        }

        void removeListener(Consumer<String> listener) {
            listeners.remove(listener);
        }
    }

    private static final Handler SHARED = new Handler();
    private final Handler handler = new Handler();
    private int loop;

    @HeapGrowthTest
    void handlesARequest() {
        long started = System.nanoTime();
        Request request = new Request("/orders/" + loop++);
        request.headers.put("accept", "application/json");
        if (!handler.handle(request).startsWith("200")) {
            throw new AssertionError();
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void listenerIsRemoved() {
        long started = System.nanoTime();
        Consumer<String> listener = response -> { };
        handler.addListener(listener);
        handler.handle(new Request("/health"));
        handler.removeListener(listener);
        Loops.done(started);
    }

    @HeapGrowthTest
    void listenerIsNeverRemoved() {
        long started = System.nanoTime();
        int request = loop++;
        SHARED.addListener(response -> { // GROWS
            if (response.isEmpty()) {
                throw new AssertionError(request);
            }
        });
        SHARED.handle(new Request("/login"));
        Loops.done(started);
    }

    @HeapGrowthTest
    void handlesABatch() {
        long started = System.nanoTime();
        List<String> responses = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            responses.add(handler.handle(new Request("/item/" + i)));
        }
        if (responses.size() != 20) {
            throw new AssertionError();
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void buildsHeaders() {
        long started = System.nanoTime();
        Request request = new Request("/search");
        for (int i = 0; i < 10; i++) {
            request.headers.put("x-header-" + i, Integer.toString(i));
        }
        Loops.done(started);
    }
}
