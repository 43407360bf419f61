package corpus.app;

/**
 * A UI screen that refreshes itself when the cart changes. {@link #open()} registers an
 * anonymous listener (class {@code corpus.app.Screen$1}) that captures the screen;
 * only {@link #close()} unregisters it.
 */
public class Screen {
    private final String title;
    private final int[] layout = new int[16];
    private Listener cartListener;
    private int refreshes;

    public Screen(String title) {
        this.title = title;
    }

    public void open() {
        cartListener = new Listener() {
            @Override
            public void onEvent(String topic) {
                refreshes++;
                layout[refreshes % layout.length]++;
            }
        };
        EventBus.getInstance().register(cartListener); // VIA (EventBus.register grows)
    }

    public void close() {
        EventBus.getInstance().unregister(cartListener);
        cartListener = null;
    }

    public String title() {
        return title;
    }

    public int refreshes() {
        return refreshes;
    }
}
