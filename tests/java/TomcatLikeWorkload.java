package heaptop.tests.tomcatlike.catalina.connector;

/**
 * A Tomcat-shaped stack, about 60 frames deep with long package names, for
 * the tree's deep-stack display (tests/e2e/test_tui_deep_stack.py): a
 * worker thread runs a connector, an adapter, four valves and a chain of
 * FILTERS filters (three frames each, as ApplicationFilterChain makes), a
 * servlet and a session listener, whose two leaves differ only in the last
 * frame: attributeAdded allocates most, sessionCreated the rest. The
 * adapter also allocates a little itself, a sibling near the top.
 * Usage: TomcatLikeWorkload SECONDS
 * Its deepest frame is at depth 2 (Thread.run, the lambda) + 5 (worker to
 * adapter) + 4 (valves) + 3 * FILTERS + 2 (the chain's end) + 3 (servlet,
 * session manager, listener) = 61 for FILTERS = 15: under the agent's
 * default depth (64), so no stack is cut.
 */
public class TomcatLikeWorkload {
    static final int FILTERS = 15;
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        long end = System.currentTimeMillis() + Long.parseLong(args[0]) * 1000;
        Thread t = new Thread(() -> new Worker().run(end), "http-nio-8080-exec-1");
        t.start();
        t.join();
    }

    static void pause() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

class Worker {
    void run(long end) {
        while (System.currentTimeMillis() < end) {
            for (int i = 0; i < 20; i++) new SocketProcessorBase().doRun();
            TomcatLikeWorkload.pause();
        }
    }
}

class SocketProcessorBase {
    void doRun() {
        new ConnectionHandler().process();
    }
}

class ConnectionHandler {
    void process() {
        new Http11Processor().service();
    }
}

class Http11Processor {
    void service() {
        new CoyoteAdapter().service();
    }
}

class CoyoteAdapter {
    void service() {
        postParseRequest();
        new StandardEngineValve().invoke();
    }

    void postParseRequest() {
        TomcatLikeWorkload.sink = new int[16]; // SITE:adapter
    }
}

class StandardEngineValve {
    void invoke() {
        new StandardHostValve().invoke();
    }
}

class StandardHostValve {
    void invoke() {
        new StandardContextValve().invoke();
    }
}

class StandardContextValve {
    void invoke() {
        new StandardWrapperValve().invoke();
    }
}

class StandardWrapperValve {
    void invoke() {
        new ApplicationFilterChain().doFilter(TomcatLikeWorkload.FILTERS);
    }
}

class ApplicationFilterChain {
    void doFilter(int left) {
        internalDoFilter(left);
    }

    void internalDoFilter(int left) {
        if (left > 0) {
            new RequestLoggingFilter().doFilter(this, left);
        } else {
            new DispatcherServlet().service();
        }
    }
}

class RequestLoggingFilter {
    void doFilter(ApplicationFilterChain chain, int left) {
        chain.doFilter(left - 1);
    }
}

class DispatcherServlet {
    void service() {
        new SessionManager().handleRequest();
    }
}

class SessionManager {
    void handleRequest() {
        SessionAttributeListener l = new SessionAttributeListener();
        l.attributeAdded(); // SITE:added_call
        l.sessionCreated(); // SITE:created_call
    }
}

class SessionAttributeListener {
    void attributeAdded() {
        TomcatLikeWorkload.sink = new byte[4096]; // SITE:deepest
    }

    void sessionCreated() {
        TomcatLikeWorkload.sink = new char[256]; // SITE:created
    }
}
