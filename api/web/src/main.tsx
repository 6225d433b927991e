/** The web app: the shell (header, navigation, sign-out) and the page of the current route. */
import "./csp-setup.ts";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import "./styles.css";
import { reconnecting } from "./live.ts";
import { HowToRead } from "./pages/HowToRead.tsx";
import { draft } from "./pages/new-prediction/draft.ts";
import { NewPredictionPage } from "./pages/new-prediction/NewPredictionPage.tsx";
import { PredictionPage } from "./pages/prediction/PredictionPage.tsx";
import { Predictions } from "./pages/Predictions.tsx";
import { SignIn } from "./pages/SignIn.tsx";
import { navigate, onLinkClick, useRoute, type Route } from "./router.ts";
import { session } from "./session.ts";

function title(route: Route): string {
  switch (route.page) {
    case "sign-in":
      return "Sign in";
    case "predictions":
      return "Predictions";
    case "new":
      return "New prediction";
    case "prediction":
      return "Prediction";
    case "how-to-read":
      return "How to read the results";
    default:
      return "Not found";
  }
}

/** The note sits in a corner (styles set through CSSOM, which the page's CSP allows). */
const RECONNECTING_STYLE = {
  position: "fixed",
  right: "1rem",
  bottom: "1rem",
  margin: "0",
  zIndex: "10",
  boxShadow: "0 2px 8px rgba(0, 0, 0, 0.15)",
} as const;

function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(session.key() !== null);
  // The service refused the key mid-session (revoked or expired): the sign-in page says so.
  const [refused, setRefused] = useState(false);
  const [streamsLost, setStreamsLost] = useState(reconnecting.count);
  useEffect(() => reconnecting.subscribe(setStreamsLost), []);
  useEffect(() => {
    const lost = () => {
      // A wrong key typed on the sign-in page is no session lost.
      if (session.key() !== null) setRefused(true);
      session.signOut();
      setSignedIn(false);
    };
    window.addEventListener("causeway:unauthorized", lost);
    return () => window.removeEventListener("causeway:unauthorized", lost);
  }, []);
  useEffect(() => {
    document.title = `${title(route)} · causeway`;
  }, [route]);
  const publicPage = route.page === "how-to-read" || route.page === "sign-in";
  const showSignIn = !signedIn && !publicPage;
  const signOut = () => {
    setRefused(false);
    session.signOut();
    setSignedIn(false);
    navigate("/app/sign-in");
  };
  return (
    <div class="shell" onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/app/">
          <span class="brand-mark" aria-hidden="true">
            ⟶
          </span>
          causeway
        </a>
        <nav aria-label="Main">
          {signedIn && <a href="/app/">Predictions</a>}
          {signedIn && <a href="/app/new">New prediction</a>}
          <a href="/app/how-to-read">How to read</a>
          <a href="/docs" target="_blank" rel="noopener">
            API
          </a>
        </nav>
        {signedIn && (
          <button type="button" class="link-button" onClick={signOut}>
            Sign out
          </button>
        )}
      </header>
      <main id="main">
        {showSignIn || route.page === "sign-in" ? (
          <SignIn
            reason={
              refused
                ? `Your API key was refused: it may have been revoked or expired. Sign in again${
                    draft.has()
                      ? "; your form was kept (files must be chosen again)."
                      : "; you will come back to this page."
                  }`
                : null
            }
            onSignedIn={() => {
              setRefused(false);
              setSignedIn(true);
              if (route.page === "sign-in") navigate("/app/");
            }}
          />
        ) : route.page === "predictions" ? (
          <Predictions />
        ) : route.page === "new" ? (
          <NewPredictionPage key={location.search} />
        ) : route.page === "prediction" ? (
          <PredictionPage id={route.id} key={route.id} />
        ) : route.page === "how-to-read" ? (
          <HowToRead anchor={route.anchor} />
        ) : (
          <section>
            <h1>Page not found</h1>
            <p>
              <a href="/app/">Back to the predictions</a>
            </p>
          </section>
        )}
      </main>
      {signedIn && streamsLost > 0 && (
        <p
          class="warn-line small reconnecting"
          role="status"
          data-testid="reconnecting"
          style={RECONNECTING_STYLE}
        >
          Connection to the service lost; reconnecting…
        </p>
      )}
      <footer class="foot">
        causeway · ranked protein targets and causal explanations ·{" "}
        <a href="/app/how-to-read">How to read the results</a>
      </footer>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
