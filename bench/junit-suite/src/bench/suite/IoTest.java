package bench.suite;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/** Clean: in-memory I/O, with every native resource released. */
class IoTest {
    private static final byte[] TEXT =
            "heap growth tests run the body in loops and dump the heap".repeat(8).getBytes(StandardCharsets.UTF_8);

    @HeapGrowthTest
    void readsLines() throws IOException {
        long started = System.nanoTime();
        int count = 0;
        try (BufferedReader reader = new BufferedReader(new StringReader("a\nb\nc\nd\n"))) {
            while (reader.readLine() != null) {
                count++;
            }
        }
        if (count != 4) {
            throw new AssertionError(count);
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void writesAndReadsData() throws IOException {
        long started = System.nanoTime();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(7);
            out.writeUTF("seven");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            if (in.readInt() != 7 || !in.readUTF().equals("seven")) {
                throw new AssertionError();
            }
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void compressesAndInflates() throws Exception {
        long started = System.nanoTime();
        Deflater deflater = new Deflater();
        byte[] packed = new byte[TEXT.length];
        int length;
        try {
            deflater.setInput(TEXT);
            deflater.finish();
            length = deflater.deflate(packed);
        } finally {
            deflater.end();
        }
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(packed, 0, length);
            byte[] unpacked = new byte[TEXT.length];
            if (inflater.inflate(unpacked) != TEXT.length) {
                throw new AssertionError();
            }
        } finally {
            inflater.end();
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void encodesBase64() {
        long started = System.nanoTime();
        String encoded = Base64.getEncoder().encodeToString(TEXT);
        if (Base64.getDecoder().decode(encoded).length != TEXT.length) {
            throw new AssertionError();
        }
        Loops.done(started);
    }

    @HeapGrowthTest
    void fillsAByteBuffer() {
        long started = System.nanoTime();
        ByteBuffer buffer = ByteBuffer.allocate(1_024);
        while (buffer.remaining() >= Long.BYTES) {
            buffer.putLong(buffer.position());
        }
        buffer.flip();
        if (buffer.getLong() != 0) {
            throw new AssertionError();
        }
        Loops.done(started);
    }
}
