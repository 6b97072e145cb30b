import { Chat } from './components/Chat.js';
import { TopBar } from './components/TopBar.js';

export function App() {
  return (
    <div className="app">
      <TopBar />
      <Chat />
    </div>
  );
}
