package com.example.libs;

import dev.heapgrowth.junit.HeapGrowthTest;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.junit.platform.runner.JUnitPlatform;
import org.junit.runner.RunWith;

/** A pool whose connections are borrowed and never returned (the leak), or returned. */
@RunWith(JUnitPlatform.class)
public class PoolTest {
    static final class Connection {
        final int id;

        Connection(int id) {
            this.id = id;
        }
    }

    static final class Factory extends BasePooledObjectFactory<Connection> {
        private int created;

        @Override
        public Connection create() {
            return new Connection(++created);
        }

        @Override
        public PooledObject<Connection> wrap(Connection connection) {
            return new DefaultPooledObject<>(connection);
        }
    }

    private final GenericObjectPool<Connection> pool = unbounded(new GenericObjectPool<>(new Factory()));

    private static GenericObjectPool<Connection> unbounded(GenericObjectPool<Connection> pool) {
        pool.setMaxTotal(-1);
        return pool;
    }

    @HeapGrowthTest
    void aConnectionBorrowedAndNeverReturned() throws Exception {
        pool.borrowObject(); // GROWS
    }

    @HeapGrowthTest
    void aConnectionBorrowedAndReturned() throws Exception {
        pool.returnObject(pool.borrowObject());
    }
}
