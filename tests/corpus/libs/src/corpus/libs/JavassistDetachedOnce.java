/*
 * JavassistDetachedOnce: the clean twin of JavassistPoolLeak. The same class file per request, but
 * the CtClass is detached from the ClassPool once its bytes are written, so the pool keeps
 * nothing of it.
 *
 * Expected:      CLEAN
 * Library:       org.javassist:javassist 3.33.0-GA
 * Growing node:  none
 * Growth:        0 (the pool's table is back to its size after every loop)
 * Measured:      heapgrowth at ca26e50 (issue 32, step 1), default schedule, JSON, JDK 17,
 *                3 runs: exit 0 in 3 of 3, "no growing objects after 31 loops in 4 snapshots"
 */
package corpus.libs;

import java.io.IOException;
import javassist.CannotCompileException;
import javassist.ClassPool;
import javassist.CtClass;
import javassist.CtField;

public class JavassistDetachedOnce implements Runnable {
    private final ClassPool pool = ClassPool.getDefault();
    private int loop;
    private long written;

    @Override
    public void run() {
        loop++;
        try {
            CtClass dto = pool.makeClass("corpus.libs.gen.Dto" + loop);
            dto.addField(CtField.make("public String id;", dto));
            written += dto.toBytecode().length;
            dto.detach();
        } catch (CannotCompileException | IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
