package dev.dprof.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AgentThreadsTest {
    @Test
    void aThreadTheAgentStartsIsTheAgentsAndOneTheApplicationStartsIsNot() throws Exception {
        Thread application = new Thread(() -> { });
        assertFalse(AgentThreads.starting(application), "started by a thread that is not the agent's");
        assertFalse(AgentThreads.isOwn(application));

        Thread child = new Thread(() -> { });
        AtomicBoolean childIsOwn = new AtomicBoolean();
        Thread agent = new Thread(() -> childIsOwn.set(AgentThreads.starting(child)));
        AgentThreads.own(List.of(agent));
        agent.start();
        agent.join();
        assertTrue(childIsOwn.get(), "started by one of the agent's threads");
        assertTrue(AgentThreads.isOwn(child), "and remembered, for its end and its joins");
        assertTrue(AgentThreads.isOwnId(child.getId()), "and by its id, for the drainer");
        assertFalse(AgentThreads.isOwnId(application.getId()));
    }

    @Test
    void aHookTheAgentRegisteredStaysTheAgentsWhoeverStartsIt() {
        Thread hook = new Thread(() -> { });
        AgentThreads.own(List.of(hook));
        assertTrue(AgentThreads.starting(hook), "System.exit starts it on the application's thread");
    }
}
