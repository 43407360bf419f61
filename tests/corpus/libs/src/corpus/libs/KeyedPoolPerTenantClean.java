/*
 * KeyedPoolPerTenantClean: clean twin of KeyedPoolPerRequestLeak. The same keyed pool, borrow and
 * return per loop, keyed by the tenant (4 tenants, loop % 4): 4 keys with one idle connection
 * each from loop 4 on.
 *
 * Expected:      CLEAN
 * Library:       org.apache.commons:commons-pool2 2.13.1
 * Growing node:  none: GenericKeyedObjectPool.poolMap holds 4 keys from loop 4 on
 * Growth:        +1 key in loops 1 to 4, then 0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.libs;

import org.apache.commons.pool2.BaseKeyedPooledObjectFactory;
import org.apache.commons.pool2.KeyedObjectPool;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;

public class KeyedPoolPerTenantClean implements Runnable {
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

    private static final String[] TENANTS = {"acme", "globex", "initech", "umbrella"};

    private final KeyedObjectPool<String, Connection> pool = new GenericKeyedObjectPool<>(new ConnectionFactory());

    private int loop;

    @Override
    public void run() {
        loop++;
        String key = TENANTS[loop % TENANTS.length];
        Connection connection;
        try {
            connection = pool.borrowObject(key);
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
