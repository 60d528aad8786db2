import { Link } from 'react-router';
import { PageTitle } from '../ui/components';

export function Component() {
  return (
    <section>
      <PageTitle title="Not found">No such page</PageTitle>
      <p>
        Nothing is at this address. <Link to="/search">Search the catalog</Link> or go <Link to="/">home</Link>.
      </p>
    </section>
  );
}
