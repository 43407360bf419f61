/*
 * CastsItsFieldLeak: a static field declared as the List interface, which the code casts to
 * ArrayList before adding (to call trimToSize). While a recording proxy is in the field the cast
 * fails: attribution must give the field back and attribute the growth another way.
 *
 * Expected:      LEAK
 * Growing field: STATIC_FIELD corpus.attribution.CastsItsFieldLeak.names -> java.util.ArrayList
 * Growth:        +1 java.lang.String per loop (2 objects per loop: the String and its byte[])
 * Growing call:  corpus.attribution.CastsItsFieldLeak.run(CastsItsFieldLeak.java:28)
 * Attribution:   the proxy makes the cast throw (a ClassCastException on the first attribution
 *                loop); the field is restored and the ArrayList's size field is watched instead
 */
package corpus.attribution;

import java.util.ArrayList;
import java.util.List;

public class CastsItsFieldLeak implements Runnable {
    private static List<String> names = new ArrayList<>();

    private int loop;

    @Override
    public void run() {
        loop++;
        ArrayList<String> list = (ArrayList<String>) names;
        list.trimToSize();
        list.add("name-" + loop); // GROWS
    }
}
