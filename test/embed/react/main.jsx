import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { CustomChat, SupportChat } from './App.jsx';

/** The test page: both ways of embedding, and a switch that unmounts the custom chat. */
function Page() {
  const [custom, setCustom] = useState(true);
  return (
    <StrictMode>
      <SupportChat />
      <button type="button" onClick={() => setCustom(!custom)}>
        {custom ? 'Hide' : 'Show'} custom chat
      </button>
      {custom && <CustomChat />}
    </StrictMode>
  );
}

createRoot(document.getElementById('root')).render(<Page />);
