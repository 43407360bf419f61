/*
 * JavassistPoolLeak: a DTO class is generated with Javassist for every request (a name per
 * request) and turned into a class file; the ClassPool (the default, application-wide pool) keeps
 * every CtClass it made, with its whole class model, until someone calls detach(). The fix is
 * detach() once the class file is written (JavassistDetachedOnce).
 *
 * Expected:      LEAK
 * Library:       org.javassist:javassist 3.33.0-GA
 * Growing node:  GcRoot(Class) -> STATIC_FIELD javassist.ClassPool.defaultPool -> ClassPool
 *                  -> INSTANCE_FIELD ClassPool.classes -> java.util.Hashtable
 *                  => [key] String, [x] javassist.CtNewClass
 * Growth:        +1 CtClass per loop (with its constant pool and members)
 * Growing call:  corpus.libs.JavassistPoolLeak.run(JavassistPoolLeak.java:32)
 *                  (into ClassPool.makeClass -> ClassPool.cacheCtClass -> Hashtable.put)
 * Measured:      heapgrowth at ca26e50 (issue 32, step 1), default schedule, JSON, JDK 17,
 *                3 runs: exit 1 in 3 of 3, the one node above: at loop 1000 1001 String keys
 *                and 1000 CtNewClass (+504 each since loop 496), 67366 objects retained.
 *                Attribution (all 3): attributed, calls to put() (container watch on
 *                Hashtable.count), 1 stack: ClassPool.cacheCtClass(:236) < makeClass(:839) <
 *                makeClass(:814) < JavassistPoolLeak.run(:32) (= GROWS, the place to look)
 */
package corpus.libs;

import java.io.IOException;
import javassist.CannotCompileException;
import javassist.ClassPool;
import javassist.CtClass;
import javassist.CtField;

public class JavassistPoolLeak implements Runnable {
    private final ClassPool pool = ClassPool.getDefault();
    private int loop;
    private long written;

    @Override
    public void run() {
        loop++;
        try {
            CtClass dto = pool.makeClass("corpus.libs.gen.Dto" + loop); // GROWS
            dto.addField(CtField.make("public String id;", dto));
            written += dto.toBytecode().length;
        } catch (CannotCompileException | IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
