package com.example.libs;

import dev.heapgrowth.junit.HeapGrowthTest;
import java.beans.PropertyChangeListener;
import java.beans.PropertyChangeSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.platform.runner.JUnitPlatform;
import org.junit.runner.RunWith;

/**
 * Growth reached through JDK packages that no module opens in the test JVM: java.lang (a
 * thread local), java.util.concurrent.atomic, java.beans. Each with its clean twin.
 */
@RunWith(JUnitPlatform.class)
public class JdkInternalsTest {
    private static final ThreadLocal<List<String>> SEEN = ThreadLocal.withInitial(ArrayList::new);
    private final AtomicReference<List<String>> recent = new AtomicReference<>(new ArrayList<>());
    private final PropertyChangeSupport changes = new PropertyChangeSupport(this);
    private final PropertyChangeListener repaint = event -> { };
    private int loop;

    @HeapGrowthTest
    void aThreadLocalListKeepsEveryLoop() {
        loop++;
        SEEN.get().add("loop-" + loop); // GROWS
    }

    @HeapGrowthTest
    void aThreadLocalListClearedEachLoop() {
        loop++;
        SEEN.get().add("loop-" + loop);
        SEEN.get().clear();
    }

    @HeapGrowthTest
    void anAtomicReferenceToAGrowingList() {
        loop++;
        recent.get().add("loop-" + loop); // GROWS
    }

    @HeapGrowthTest
    void anAtomicReferenceSwappedForAnEmptyList() {
        loop++;
        recent.get().add("loop-" + loop);
        recent.set(new ArrayList<>());
    }

    @HeapGrowthTest
    void aListenerAddedEveryLoop() {
        changes.addPropertyChangeListener("theme", repaint); // GROWS
    }

    @HeapGrowthTest
    void aListenerAddedAndRemoved() {
        changes.addPropertyChangeListener("theme", repaint);
        changes.removePropertyChangeListener("theme", repaint);
    }
}
