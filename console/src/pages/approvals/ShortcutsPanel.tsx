import { SHORTCUTS } from './keyboard';

/** The visible list of the inbox's shortcuts, with the switch that turns them off (remembered). */
export function ShortcutsPanel(props: { enabled: boolean; onToggle: (enabled: boolean) => void }) {
  return (
    <section class="panel approval-shortcuts" aria-labelledby="approval-shortcuts-title">
      <h2 id="approval-shortcuts-title">Keyboard shortcuts</h2>
      <label class="approval-toggle">
        <input
          type="checkbox"
          checked={props.enabled}
          onChange={(event) => props.onToggle(event.currentTarget.checked)}
        />
        Use keyboard shortcuts
      </label>
      <table class={props.enabled ? 'approval-keys' : 'approval-keys approval-keys-off'}>
        <caption class="approval-visually-hidden">Keys of the approvals inbox</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((shortcut) => (
            <tr key={shortcut.action}>
              <td>
                {shortcut.keys.map((key, i) => (
                  <span key={key}>
                    {i > 0 && ' or '}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </td>
              <td>{shortcut.label}</td>
            </tr>
          ))}
          <tr>
            <td>
              <kbd>Ctrl</kbd> + <kbd>Enter</kbd>
            </td>
            <td>Confirm, in a dialog</td>
          </tr>
        </tbody>
      </table>
      <p class="hint">
        {props.enabled
          ? 'Shortcuts do nothing while you type in a field or while a dialog is open.'
          : 'Shortcuts are switched off; the buttons still work.'}
      </p>
    </section>
  );
}
