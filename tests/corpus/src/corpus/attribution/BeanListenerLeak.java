/*
 * BeanListenerLeak: a price field bean (a user class) keeps its vetoable-change listeners in a
 * java.beans.VetoableChangeSupport of its own, for the named property "price". Every loop an
 * order form opens, adds a new PriceValidator for "price" and never removes it. Inside the JDK,
 * ChangeListenerMap.add copies the property's listener array to a new array one longer and puts
 * it back into its HashMap: the array is REPLACED on every add, and the path goes through
 * java.beans fields (module java.desktop, not opened to the unnamed module). Unlike
 * corpus.leaks.PropertyChangeLeak (one listener for all properties, via corpus.app.ThemeSettings),
 * this adds a new listener object per loop, for one named property, to a VetoableChangeSupport.
 *
 * Expected:      LEAK
 * Growing node:  the listener array of property "price":
 *                STATIC_FIELD corpus.attribution.BeanListenerLeak.price
 *                  -> corpus.attribution.BeanListenerLeak$PriceField
 *                  -> INSTANCE_FIELD PriceField.vetos -> java.beans.VetoableChangeSupport
 *                  -> INSTANCE_FIELD VetoableChangeSupport.map
 *                     -> java.beans.VetoableChangeSupport$VetoableChangeListenerMap
 *                  -> INSTANCE_FIELD ChangeListenerMap.map -> java.util.HashMap (1 entry, key
 *                     "price") => VetoableChangeListener[] (length n) => BeanListenerLeak$PriceValidator
 * Growth:        +1 PriceValidator per loop (1 object), +1 array slot (the array replaced)
 * Growing call:  corpus.attribution.BeanListenerLeak$PriceField.addValidator(BeanListenerLeak.java:49)
 *                  via corpus.attribution.BeanListenerLeak.run(BeanListenerLeak.java:86)
 *                (inside the JDK: VetoableChangeSupport.addVetoableChangeListener
 *                -> ChangeListenerMap.add -> HashMap.put of the new array)
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 1 in 3 of 3; node ARRAY_ENTRY HashMap.[x] -> VetoableChangeListener[]
 *                (under ChangeListenerMap.map), children at loops 3, 7, 15, 31, 124, 496, 1000: 3,
 *                7, 15, 31, 124, 496, 1000 PriceValidators. Attribution (all 3): not_attributed,
 *                "cannot follow the path in the running JVM: ... InaccessibleObjectException:
 *                Unable to make field private
 *                java.beans.VetoableChangeSupport$VetoableChangeListenerMap
 *                java.beans.VetoableChangeSupport.map accessible: module java.desktop does not
 *                "opens java.beans" to unnamed module @..."
 */
package corpus.attribution;

import java.beans.PropertyChangeEvent;
import java.beans.PropertyVetoException;
import java.beans.VetoableChangeListener;
import java.beans.VetoableChangeSupport;

public class BeanListenerLeak implements Runnable {
    /** A bean with one constrained property, "price". */
    static final class PriceField {
        private final VetoableChangeSupport vetos = new VetoableChangeSupport(this);
        private long cents;

        void addValidator(VetoableChangeListener validator) {
            vetos.addVetoableChangeListener("price", validator); // GROWS
        }

        void removeValidator(VetoableChangeListener validator) {
            vetos.removeVetoableChangeListener("price", validator);
        }

        void setCents(long newCents) throws PropertyVetoException {
            vetos.fireVetoableChange("price", cents, newCents);
            cents = newCents;
        }
    }

    /** Rejects negative prices; one per order form. */
    static final class PriceValidator implements VetoableChangeListener {
        private final int form;

        PriceValidator(int form) {
            this.form = form;
        }

        @Override
        public void vetoableChange(PropertyChangeEvent event) throws PropertyVetoException {
            if (((Long) event.getNewValue()) < 0) {
                throw new PropertyVetoException("negative price on form " + form, event);
            }
        }
    }

    private static PriceField price = new PriceField();

    private int loop;

    @Override
    public void run() {
        loop++;
        PriceValidator validator = new PriceValidator(loop); // ALLOCATED
        price.addValidator(validator); // VIA (PriceField.addValidator grows)
        try {
            price.setCents(100L * (loop % 7));
        } catch (PropertyVetoException e) {
            throw new IllegalStateException(e);
        }
        // Bug: the form never calls price.removeValidator(validator) when it closes.
    }
}
