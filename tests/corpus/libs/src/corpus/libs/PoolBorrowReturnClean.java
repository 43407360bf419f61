/*
 * PoolBorrowReturnClean: the twin of PoolBorrowLeak that returns its connection in a finally:
 * the pool creates one connection on loop 1 and lends that same one on every loop.
 *
 * Expected:      CLEAN (not reported)
 * Library:       org.apache.commons:commons-pool2 2.13.1
 * Watched field: INSTANCE_FIELD org.apache.commons.pool2.impl.GenericObjectPool.allObjects
 *                  -> ConcurrentHashMap: 1 entry from loop 1 on; GenericObjectPool.idleObjects
 *                  -> LinkedBlockingDeque: the same object, idle between loops (one new deque
 *                node per return, the old one unlinked). Also an MBean, as in PoolBorrowLeak
 * Growth:        0 after loop 1
 * Measured:      after loops 3, 5, 7, 11, 19, 35, 67, 131, 259, 515: active 0, idle 1, created 1 at
 *                every checkpoint; 361 objects reachable from the scenario at every checkpoint
 *                (the pool's config, stats stores, ObjectName, ...); both driver runs
 * heapgrowth:    at 2f1f225 (default schedule): not reported in 5 of 5 runs ("no growing
 *                objects after 7 loops in 3 snapshots")
 */
package corpus.libs;

import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.ObjectPool;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

public class PoolBorrowReturnClean implements Runnable {
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

    public PoolBorrowReturnClean() {
        GenericObjectPoolConfig<Connection> config = new GenericObjectPoolConfig<>();
        config.setMaxTotal(-1);
        pool = new GenericObjectPool<>(new ConnectionFactory(), config);
    }

    @Override
    public void run() {
        loop++;
        Connection connection;
        try {
            connection = pool.borrowObject();
        } catch (Exception e) {
            throw new IllegalStateException("borrow failed on loop " + loop, e);
        }
        try {
            connection.send(loop);
        } finally {
            try {
                pool.returnObject(connection);
            } catch (Exception e) {
                throw new IllegalStateException("return failed on loop " + loop, e);
            }
        }
    }
}
