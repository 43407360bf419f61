package corpus.app;

/**
 * The template {@link TemplateLoader} copies: each copy is this class file with every occurrence
 * of its six-digit suffix replaced by another of the same length (so every constant-pool offset
 * stays valid), as a proxy or bytecode generator makes one class per call.
 */
public final class GeneratedHandler000000 {
    public String handle(String request) {
        return "handled " + request;
    }
}
