/** The web app: the shell (header, navigation, sign-out) and the page of the current route. */
import "./csp-setup.ts";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import "./styles.css";
import { HowToRead } from "./pages/HowToRead.tsx";
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

function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(session.key() !== null);
  useEffect(() => {
    const lost = () => {
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
            onSignedIn={() => {
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
      <footer class="foot">
        causeway · ranked protein targets and causal explanations ·{" "}
        <a href="/app/how-to-read">How to read the results</a>
      </footer>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
