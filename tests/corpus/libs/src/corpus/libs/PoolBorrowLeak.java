/*
 * PoolBorrowLeak: an Apache Commons Pool 2 GenericObjectPool with no cap (setMaxTotal(-1));
 * every loop borrows a connection, uses it and forgets to return it, so the pool creates a new
 * one on every borrow and tracks them all as active.
 *
 * Expected:      LEAK
 * Library:       org.apache.commons:commons-pool2 2.13.1
 * Growing field: INSTANCE_FIELD org.apache.commons.pool2.impl.GenericObjectPool.allObjects
 *                  -> java.util.concurrent.ConcurrentHashMap, reached through
 *                INSTANCE_FIELD corpus.libs.PoolBorrowLeak.pool (declared ObjectPool, final)
 *                  -> GenericObjectPool. The pool also registers itself as a platform MBean
 *                (org.apache.commons.pool2:type=GenericObjectPool,name=pool, the default
 *                jmxEnabled), so the platform MBeanServer holds it too, for the life of the JVM
 * Growth:        +1 pooled object per loop, 7 objects: ConcurrentHashMap$Node, its key
 *                BaseGenericObjectPool$IdentityWrapper, its value DefaultPooledObject (with 2
 *                java.time.Instant), the PoolBorrowLeak$Connection and its byte[64]
 * Growing call:  corpus.libs.PoolBorrowLeak.run(PoolBorrowLeak.java:84)
 *                  (into GenericObjectPool.borrowObject -> create: allObjects.put; the factory's
 *                  create() has returned by then)
 * Measured:      getNumActive() after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: 3, 5, 7, 11,
 *                19, 35, 67, 131, 259, 515 (idle 0, created = active); objects reachable from
 *                the scenario: 373, 387, 401, 429, 485, 597, 821, 1269, 2165, 3957 (+7 per loop);
 *                identical in both driver runs
 * heapgrowth:    at 2f1f225 (default schedule): reported in 3 of 3 runs, GenericObjectPool
 *                .allObjects -> ConcurrentHashMap, children [key] IdentityWrapper and [x]
 *                DefaultPooledObject, 23 objects (6 new) after 23 loops
 */
package corpus.libs;

import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.ObjectPool;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

public class PoolBorrowLeak implements Runnable {
    /** A pooled "connection": an id and a small send buffer. */
    static final class Connection {
        final int id;
        final byte[] buffer = new byte[64];
        int sent;

        Connection(int id) {
            this.id = id;
        }

        void send(int request) {
            buffer[request % buffer.length]++;
            sent++;
        }
    }

    static final class ConnectionFactory extends BasePooledObjectFactory<Connection> {
        private int opened;

        @Override
        public Connection create() {
            opened++;
            return new Connection(opened);
        }

        @Override
        public PooledObject<Connection> wrap(Connection connection) {
            return new DefaultPooledObject<>(connection);
        }
    }

    private final ObjectPool<Connection> pool;

    private int loop;

    public PoolBorrowLeak() {
        GenericObjectPoolConfig<Connection> config = new GenericObjectPoolConfig<>();
        config.setMaxTotal(-1);
        pool = new GenericObjectPool<>(new ConnectionFactory(), config);
    }

    @Override
    public void run() {
        loop++;
        Connection connection;
        try {
            connection = pool.borrowObject(); // GROWS
        } catch (Exception e) {
            throw new IllegalStateException("borrow failed on loop " + loop, e);
        }
        connection.send(loop);
        // pool.returnObject(connection) is never called.
    }
}
