/*
 * BeanListenerRemoved: clean twin of BeanListenerLeak. The same PriceField bean and a new
 * PriceValidator per loop, removed again when the order form closes, so the
 * VetoableChangeSupport holds no listener between loops (ChangeListenerMap.map is null again
 * once its last listener is removed).
 *
 * Expected:      CLEAN
 * Growing node:  none: STATIC_FIELD corpus.attribution.BeanListenerRemoved.price
 *                  -> BeanListenerRemoved$PriceField -> vetos -> VetoableChangeSupport, no
 *                listener between loops
 * Growth:        0
 * Measured:      heapgrowth 0.1.0 (the frozen /work/helper-bin/heapgrowth), default schedule, JSON,
 *                3 runs: exit 0 in 3 of 3, nothing reported, nothing leveled off (31 loops, 4
 *                snapshots)
 */
package corpus.attribution;

import java.beans.PropertyChangeEvent;
import java.beans.PropertyVetoException;
import java.beans.VetoableChangeListener;
import java.beans.VetoableChangeSupport;

public class BeanListenerRemoved implements Runnable {
    /** A bean with one constrained property, "price". */
    static final class PriceField {
        private final VetoableChangeSupport vetos = new VetoableChangeSupport(this);
        private long cents;

        void addValidator(VetoableChangeListener validator) {
            vetos.addVetoableChangeListener("price", validator);
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
        PriceValidator validator = new PriceValidator(loop);
        price.addValidator(validator);
        try {
            price.setCents(100L * (loop % 7));
        } catch (PropertyVetoException e) {
            throw new IllegalStateException(e);
        } finally {
            price.removeValidator(validator);
        }
    }
}
