/*
 * KeyedPoolPerRequestLeak: an Apache Commons Pool 2 GenericKeyedObjectPool of connections keyed
 * by tenant; the code builds the key from the request id instead of the tenant, so every loop
 * borrows (and correctly returns) a connection under a new key. A returned connection stays
 * idle under its key, and a key with an idle object is never dropped: the pool keeps one
 * sub-pool (ObjectDeque with its idle deque and counters) and one connection per loop. No evictor
 * runs (timeBetweenEvictionRuns is negative by default).
 *
 * Expected:      LEAK
 * Library:       org.apache.commons:commons-pool2 2.13.1
 * Growing node:  INSTANCE_FIELD org.apache.commons.pool2.impl.GenericKeyedObjectPool.poolMap
 *                  -> java.util.concurrent.ConcurrentHashMap => GenericKeyedObjectPool$ObjectDeque
 *                (key String), each with its idle LinkedBlockingDeque and allObjects
 *                ConcurrentHashMap holding the DefaultPooledObject -> Connection; also
 *                GenericKeyedObjectPool.poolKeyList -> ArrayList => String; reached through
 *                INSTANCE_FIELD corpus.libs.KeyedPoolPerRequestLeak.pool (declared
 *                KeyedObjectPool, final) -> GenericKeyedObjectPool. The pool is also a platform
 *                MBean (jmxEnabled by default)
 * Growth:        +1 key per loop, a few dozen objects (ObjectDeque, its locks, atomics, deque
 *                nodes and maps, the pooled object, the connection)
 * Growing call:  corpus.libs.KeyedPoolPerRequestLeak.run(KeyedPoolPerRequestLeak.java:81)
 *                  (into GenericKeyedObjectPool.borrowObject -> register -> poolMap.computeIfAbsent)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; 2 nodes under GenericKeyedObjectPool: poolKeyList ->
 *                ArrayList, children at loops 3, 7, 15, 31, 124, 496, 1000: 3, 7, 15, 31, 124, 496,
 *                1000 Strings, attributed, calls to add(), 2 stacks (2 calls each, via
 *                ConcurrentHashMap.computeIfAbsent lines 1708 and 1740):
 *                GenericKeyedObjectPool.lambda$register$13(GenericKeyedObjectPool.java:1518) < ...
 *                < register(1511) < borrowObject(451, 598, 369) <
 *                KeyedPoolPerRequestLeak.run(KeyedPoolPerRequestLeak.java:81) = the GROWS line, the
 *                8th frame; poolMap -> ConcurrentHashMap, children at loops 3, 7, 15, 31, 124, 496,
 *                1000: 3, 7, 15, 31, 124, 496, 1000 ObjectDeques, attributed, allocated at, 1 stack
 *                with 1 object (of 4 loops): lambda$register$13(GenericKeyedObjectPool.java:1513) <
 *                ... < run(:81)
 */
package corpus.libs;

import org.apache.commons.pool2.BaseKeyedPooledObjectFactory;
import org.apache.commons.pool2.KeyedObjectPool;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;

public class KeyedPoolPerRequestLeak implements Runnable {
    /** A pooled "connection" to a tenant's database. */
    static final class Connection {
        final String tenant;
        int sent;

        Connection(String tenant) {
            this.tenant = tenant;
        }

        void send(int request) {
            sent += request;
        }
    }

    static final class ConnectionFactory extends BaseKeyedPooledObjectFactory<String, Connection> {
        @Override
        public Connection create(String tenant) {
            return new Connection(tenant);
        }

        @Override
        public PooledObject<Connection> wrap(Connection connection) {
            return new DefaultPooledObject<>(connection);
        }
    }

    private final KeyedObjectPool<String, Connection> pool = new GenericKeyedObjectPool<>(new ConnectionFactory());

    private int loop;

    @Override
    public void run() {
        loop++;
        String key = "tenant-of-request-" + loop; // bug: should be the tenant, of which there are few
        Connection connection;
        try {
            connection = pool.borrowObject(key); // GROWS
        } catch (Exception e) {
            throw new IllegalStateException("borrow failed on loop " + loop, e);
        }
        try {
            connection.send(loop);
        } finally {
            try {
                pool.returnObject(key, connection);
            } catch (Exception e) {
                throw new IllegalStateException("return failed on loop " + loop, e);
            }
        }
    }
}
