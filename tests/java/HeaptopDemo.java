import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The bundled demo: a small "service" with several threads, phases and a leak.
 *  - request threads parse fake requests (short-lived strings and buffers);
 *  - a session cache that is never evicted (the leak: it only grows);
 *  - a report phase every few seconds that builds large arrays and drops them.
 * Usage: HeaptopDemo [SECONDS]  (0 or absent: run until killed)
 */
public class HeaptopDemo {
    static final Map<String, Session> SESSIONS = new HashMap<>(); // the leak
    static volatile Object sink;

    static final class Session {
        final String user;
        final byte[] state;
        final List<String> history = new ArrayList<>();
        Session(String user) {
            this.user = user;
            this.state = new byte[512]; // SITE:session_state
        }
    }

    static String parseRequest(int n) {
        StringBuilder sb = new StringBuilder(64);
        sb.append("GET /item/").append(n).append("?user=u").append(n % 5000);
        byte[] body = new byte[256 + (n & 1023)]; // SITE:body
        sink = body;
        return sb.toString();
    }

    static void rememberSession(String request, int n) {
        String user = request.substring(request.indexOf("user=") + 5);
        synchronized (SESSIONS) {
            Session s = SESSIONS.computeIfAbsent(user + "#" + (n / 50), Session::new);
            s.history.add(request);
        }
    }

    static void serve(long end) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int n = 0;
        while (end == 0 || System.currentTimeMillis() < end) {
            String req = parseRequest(r.nextInt(1_000_000));
            if ((n++ & 63) == 0) rememberSession(req, n);
            if ((n & 4095) == 0) pause(1);
        }
    }

    static double[] buildReport() {
        double[] totals = new double[250_000];
        for (int i = 0; i < totals.length; i++) totals[i] = i * 0.5;
        return totals;
    }

    static void reports(long end) {
        while (end == 0 || System.currentTimeMillis() < end) {
            for (int i = 0; i < 8; i++) sink = buildReport();
            pause(2000);
        }
    }

    static void pause(long ms) {
        try { Thread.sleep(ms); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 0;
        long end = seconds > 0 ? System.currentTimeMillis() + seconds * 1000 : 0;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) threads.add(new Thread(() -> serve(end), "request-" + i));
        threads.add(new Thread(() -> reports(end), "reports"));
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
        System.out.println("demo done: " + SESSIONS.size() + " sessions cached");
    }
}
